//! The one piece of linear algebra the ratings need: a symmetric positive-definite system
//! solved by its Cholesky factor (`A = L Lᵀ`), dense, and the diagonal of `A⁻¹`.

/// A dense symmetric positive-definite matrix's Cholesky factor.
pub(super) struct Cholesky {
    n: usize,
    /// `L`, row-major; only the lower triangle is used.
    l: Vec<f64>,
}

impl Cholesky {
    /// Factors `a` (row-major, `n × n`, symmetric); `None` when it is not positive definite
    /// (to rounding).
    pub(super) fn new(mut a: Vec<f64>, n: usize) -> Option<Cholesky> {
        assert_eq!(a.len(), n * n, "an n × n matrix");
        for i in 0..n {
            let (above, from_i) = a.split_at_mut(i * n);
            let row_i = &mut from_i[..n];
            for j in 0..=i {
                let row_j = if j == i {
                    &row_i[..j]
                } else {
                    &above[j * n..j * n + j]
                };
                let s: f64 = row_i[..j].iter().zip(row_j).map(|(x, y)| x * y).sum();
                if j == i {
                    let d = row_i[i] - s;
                    if d <= 0.0 || !d.is_finite() {
                        return None;
                    }
                    row_i[i] = d.sqrt();
                } else {
                    row_i[j] = (row_i[j] - s) / above[j * n + j];
                }
            }
        }
        Some(Cholesky { n, l: a })
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.l[i * self.n + j]
    }

    /// `x` with `A x = b`.
    pub(super) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut y = b.to_vec();
        for i in 0..n {
            let s: f64 = self.l[i * n..i * n + i]
                .iter()
                .zip(&y[..i])
                .map(|(a, b)| a * b)
                .sum();
            y[i] = (y[i] - s) / self.at(i, i);
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|k| self.at(k, i) * y[k]).sum();
            y[i] = (y[i] - s) / self.at(i, i);
        }
        y
    }

    /// The diagonal of `A⁻¹`: `(A⁻¹)ᵢᵢ = Σₖ (L⁻¹)ₖᵢ²`, column `i` of `L⁻¹` by forward
    /// substitution from `eᵢ`.
    pub(super) fn inverse_diagonal(&self) -> Vec<f64> {
        let n = self.n;
        let mut col = vec![0.0; n];
        (0..n)
            .map(|i| {
                col[i] = 1.0 / self.at(i, i);
                for k in i + 1..n {
                    let s: f64 = self.l[k * n + i..k * n + k]
                        .iter()
                        .zip(&col[i..k])
                        .map(|(a, b)| a * b)
                        .sum();
                    col[k] = -s / self.at(k, k);
                }
                col[i..].iter().map(|c| c * c).sum()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Cholesky;

    #[test]
    fn solves_and_inverts_a_small_system() {
        // A = [[4, 2, 0], [2, 5, 1], [0, 1, 3]]; A⁻¹'s diagonal is (14, 12, 16) / 44.
        let a = vec![4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let c = Cholesky::new(a.clone(), 3).unwrap();
        let x = c.solve(&[1.0, 2.0, 3.0]);
        for i in 0..3 {
            let ax: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum();
            assert!((ax - [1.0, 2.0, 3.0][i]).abs() < 1e-12, "{x:?}");
        }
        let d = c.inverse_diagonal();
        for (got, want) in d.iter().zip([14.0 / 44.0, 12.0 / 44.0, 16.0 / 44.0]) {
            assert!((got - want).abs() < 1e-12, "{d:?}");
        }
        assert!(Cholesky::new(vec![1.0, 2.0, 2.0, 1.0], 2).is_none());
    }
}
