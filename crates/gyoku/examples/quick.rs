use gyoku::*;
fn main() {
    let cases = [
        ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", vec![30u64, 900, 25470, 719731, 19861490]),
        ("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", vec![207, 28684, 4809015]),
        ("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", vec![593, 105677, 53393368]),
        ("R6sk/9/7G1/9/9/9/9/9/4K4 b P 1", vec![110, 56, 5666, 65205]),
        ("R8/2G1k4/9/2S6/2BN2N2/9/9/9/4K4 b P 1", vec![139, 68, 8424, 113046]),
        ("lnsgkgsnl/1r5b1/pppp1pppp/9/4R4/9/PPPP1PPPP/1B7/LNSGKGSNL w Pp 1", vec![8, 352, 9724, 402672]),
        ("ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76", vec![2, 445, 45717]),
        ("4k4/9/p1ppppp1p/9/9/9/P1PPPPP1P/9/4K4 b RB2G2S2N2LPrb2g2s2n2lp 1", vec![393, 144556, 50257020]),
        ("l2+R3nl/3s1kg2/3pppsp1/p1p3p1p/2lS3P1/P4PP1P/1PNPP1N2/2K1g1SR1/+b4G2L w BGN2p 46", vec![40, 5599, 210823, 23770097]),
    ];
    for (sfen, counts) in cases {
        let pos = Position::from_sfen(sfen).unwrap();
        for (d, &want) in counts.iter().enumerate() {
            let t = std::time::Instant::now();
            let got = perft(&pos, d as u32 + 1);
            let el = t.elapsed().as_secs_f64();
            println!("{} d{} {} {} {} {:.1} Mnps", if got == want {"ok "} else {"BAD"}, d+1, got, want, &sfen[..20], got as f64/el/1e6);
        }
    }
}
