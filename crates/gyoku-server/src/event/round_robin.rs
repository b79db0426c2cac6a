//! Round-robin rounds by Berger tables (the circle method): every pair meets once, colours
//! alternate as evenly as the field allows; in an odd field the seat that would meet the
//! phantom sits out.

/// The rounds of a round-robin of `n` players: `(black, white)` pairs by seat. An odd
/// field has `n` rounds (one sits out in each), an even one `n - 1`.
///
/// ```
/// # use gyoku_server::event::round_robin::berger;
/// let rounds = berger(4);
/// assert_eq!(rounds.len(), 3);
/// assert!(rounds.iter().all(|r| r.len() == 2));
/// ```
pub fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    let m = n + n % 2;
    // Position k of the circle holds seat circle[k]; the last position is fixed.
    let mut circle: Vec<usize> = (0..m).collect();
    let mut rounds = Vec::with_capacity(m - 1);
    for r in 0..m - 1 {
        let mut pairs = Vec::with_capacity(m / 2);
        for k in 0..m / 2 {
            let (a, b) = (circle[k], circle[m - 1 - k]);
            if a >= n || b >= n {
                continue;
            }
            // The fixed seat alternates colours by round; the others by their place.
            let a_black = if k == 0 { r % 2 == 0 } else { k % 2 == 1 };
            pairs.push(if a_black { (a, b) } else { (b, a) });
        }
        rounds.push(pairs);
        circle[..m - 1].rotate_right(1);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_meets_once_and_colours_stay_near_even() {
        for n in 2..=16 {
            let rounds = berger(n);
            let mut met = std::collections::HashSet::new();
            let mut balance = vec![0i32; n];
            for r in &rounds {
                let mut seated = std::collections::HashSet::new();
                for &(b, w) in r {
                    assert!(seated.insert(b) && seated.insert(w), "n {n}: a seat twice");
                    assert!(met.insert((b.min(w), b.max(w))), "n {n}: a pair twice");
                    balance[b] += 1;
                    balance[w] -= 1;
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2, "n {n}");
            assert!(balance.iter().all(|b| b.abs() <= 2), "n {n}: {balance:?}");
        }
    }
}
