//! The impasse chart: both sides' total points, declaration points and zone counts over a
//! whole game, as an SVG with the 24/27/28/31 lines drawn (`gyoku impasse --chart`, and
//! the web page's game view).

use std::fmt::Write;

use gyoku::{Color, ImpasseCount, Position};

/// The figures of both sides after each ply (index 0 = the start).
pub fn series(start: &Position, moves: &[gyoku::Move], credit: u32) -> Vec<[ImpasseCount; 2]> {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(moves.len() + 1);
    out.push([
        ImpasseCount::of(&pos, Color::Black, credit),
        ImpasseCount::of(&pos, Color::White, credit),
    ]);
    for &m in moves {
        pos.play_unchecked(m);
        out.push([
            ImpasseCount::of(&pos, Color::Black, credit),
            ImpasseCount::of(&pos, Color::White, credit),
        ]);
    }
    out
}

/// One line of the chart: its name, colour, dash pattern, figure and side.
type Series = (
    &'static str,
    &'static str,
    &'static str,
    fn(&ImpasseCount) -> u32,
    usize,
);

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 50.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 40.0;
const MAX_POINTS: f64 = 60.0;

fn x(ply: usize, plies: usize) -> f64 {
    LEFT + (WIDTH - LEFT - RIGHT) * ply as f64 / plies.max(1) as f64
}

fn y(value: f64) -> f64 {
    HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value.min(MAX_POINTS) / MAX_POINTS
}

/// Draws the chart.
pub fn svg(title: &str, data: &[[ImpasseCount; 2]]) -> String {
    let plies = data.len().saturating_sub(1);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="18" font-size="14">{}</text>
"##,
        title.replace('&', "&amp;").replace('<', "&lt;")
    );
    // Thresholds: 24 (JSA count), 27/28 (27-point rules), 31 (JSA declaration).
    for (value, label) in [(24.0, "24"), (27.0, "27"), (28.0, "28"), (31.0, "31")] {
        let py = y(value);
        // 27 and 28 are close: 28's label goes to the right edge.
        let lx = if label == "28" {
            WIDTH - RIGHT + 2.0
        } else {
            LEFT - 22.0
        };
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" x2="{}" y1="{py:.1}" y2="{py:.1}" stroke="#bbb" stroke-dasharray="4 3"/><text x="{lx}" y="{:.1}" fill="#888">{label}</text>"##,
            WIDTH - RIGHT,
            py + 4.0,
        );
    }
    for v in [0.0, 10.0, 20.0, 40.0, 50.0] {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{:.1}" fill="#888">{v}</text>"##,
            LEFT - 22.0,
            y(v) + 4.0
        );
    }
    let step = match plies {
        0..=100 => 10,
        101..=300 => 50,
        _ => 100,
    };
    for ply in (0..=plies).step_by(step) {
        let px = x(ply, plies);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" x2="{px:.1}" y1="{}" y2="{}" stroke="#eee"/><text x="{px:.1}" y="{}" text-anchor="middle" fill="#888">{ply}</text>"##,
            TOP,
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 16.0
        );
    }
    let series: [Series; 6] = [
        ("Black total", "#1f4e9a", "", |c| c.total_points, 0),
        (
            "Black declaration",
            "#1f4e9a",
            "6 3",
            |c| c.declaration_points,
            0,
        ),
        ("Black zone count", "#7aa6e8", "1 3", |c| c.zone_count, 0),
        ("White total", "#b3261e", "", |c| c.total_points, 1),
        (
            "White declaration",
            "#b3261e",
            "6 3",
            |c| c.declaration_points,
            1,
        ),
        ("White zone count", "#eb8f88", "1 3", |c| c.zone_count, 1),
    ];
    for (i, (name, color, dash, value, side)) in series.iter().enumerate() {
        let points: Vec<String> = data
            .iter()
            .enumerate()
            .map(|(ply, counts)| {
                format!(
                    "{:.1},{:.1}",
                    x(ply, plies),
                    y(f64::from(value(&counts[*side])))
                )
            })
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}" points="{}"/>"##,
            points.join(" ")
        );
        let lx = LEFT + 10.0 + (i % 3) as f64 * 150.0 + (i / 3) as f64 * 460.0;
        let _ = writeln!(
            s,
            r##"<line x1="{lx}" x2="{}" y1="{TOP}" y2="{TOP}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{name}</text>"##,
            lx + 20.0,
            lx + 24.0,
            TOP + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
