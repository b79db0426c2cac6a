//! The README and the manual in `docs/` stay true: every `console` example is run through
//! the binary and must print what the page shows; every link points at a file in the
//! repository (and at a heading that exists); the README stays a front page that opens
//! with its two commands.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// README.md and every page of docs/, as (path relative to the repository, text).
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 9, "{docs:?}");
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(repo().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// The fenced blocks of a page: (info string, first line number, lines).
fn blocks(text: &str) -> Vec<(String, usize, Vec<&str>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.trim().to_string(), i + 2, Vec::new())),
            (Some(_), Some("")) => out.push(open.take().unwrap()),
            (Some((_, _, lines)), _) => lines.push(line),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    out
}

/// Whether `actual` is what `expected` shows, where a line `...` stands for any lines.
fn fits(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| fits(rest, &actual[skip..])),
        Some((line, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| a.trim_end() == line.trim_end() && fits(rest, more)),
    }
}

#[test]
fn every_console_example_prints_what_the_page_shows() {
    let bin = Path::new(env!("CARGO_BIN_EXE_gyoku")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut run = 0;
    let mut failures = Vec::new();
    for (page, text) in pages() {
        for (info, first, lines) in blocks(&text) {
            if info != "console" {
                continue;
            }
            // Each `$ command` with the lines up to the next one.
            let mut examples: Vec<(usize, &str, Vec<&str>)> = Vec::new();
            for (k, line) in lines.iter().enumerate() {
                match line.strip_prefix("$ ") {
                    Some(command) => examples.push((first + k, command, Vec::new())),
                    None => examples
                        .last_mut()
                        .unwrap_or_else(|| panic!("{page}:{}: output before a command", first + k))
                        .2
                        .push(line),
                }
            }
            for (line, command, expected) in examples {
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(format!("exec 2>&1\n{command}"))
                    .current_dir(repo())
                    .env("PATH", &path)
                    .output()
                    .unwrap();
                let printed = String::from_utf8_lossy(&out.stdout);
                let mut actual: Vec<&str> = printed.lines().collect();
                while actual.last().is_some_and(|l| l.trim().is_empty()) {
                    actual.pop();
                }
                run += 1;
                if !fits(&expected, &actual) {
                    failures.push(format!(
                        "{page}:{line}: $ {command}\n--- the page shows:\n{}\n--- it printed:\n{}",
                        expected.join("\n"),
                        actual.join("\n")
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(run >= 25, "only {run} examples run");
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks), with GitHub's `-1`, `-2` for
/// repeats.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let base = anchor(line.trim_start_matches('#'));
            let repeats = seen.entry(base.clone()).or_default();
            out.push(if *repeats == 0 {
                base
            } else {
                format!("{base}-{repeats}")
            });
            *repeats += 1;
        }
    }
    out
}

/// Every `](target)` of a page outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_link_points_into_the_repository() {
    let root = repo().canonicalize().unwrap();
    let mut bad = Vec::new();
    let mut checked = 0;
    for (page, text) in pages() {
        let dir = root.join(&page).parent().unwrap().to_path_buf();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                bad.push(format!(
                    "{page}: {link}: links go to files in the repository"
                ));
                continue;
            }
            checked += 1;
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                root.join(&page)
            } else {
                dir.join(file)
            };
            let Ok(target) = target.canonicalize() else {
                bad.push(format!("{page}: {link}: no such file"));
                continue;
            };
            if !target.starts_with(&root) {
                bad.push(format!("{page}: {link}: outside the repository"));
                continue;
            }
            if !fragment.is_empty() {
                let text = std::fs::read_to_string(&target).unwrap();
                if !anchors(&text).iter().any(|a| a == fragment) {
                    bad.push(format!("{page}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(checked >= 30, "only {checked} links");
}

#[test]
fn the_readme_is_a_front_page_that_opens_with_its_two_commands() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: the manual belongs in docs/"
    );
    let (info, _, first) = blocks(&text).into_iter().next().unwrap();
    assert_eq!(info, "sh");
    assert!(first[0].starts_with("cargo run --release -p gyoku-cli -- serve"));
    assert!(first[1].starts_with("cargo test --workspace"));
    // Each part of the manual has a table of contents.
    for (page, text) in pages().into_iter().skip(1) {
        let contents = links(&text).iter().filter(|l| l.starts_with('#')).count();
        assert!(contents >= 2, "{page}: no table of contents");
    }
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        anchor(" `gyoku judge [--sfen SFEN] --moves \"...\" [--rules PRESET] [--max-moves N]`"),
        "gyoku-judge---sfen-sfen---moves----rules-preset---max-moves-n"
    );
    assert_eq!(
        anchors("# A\n```sh\n# not a heading\n```\n## A\n## B: c\n"),
        ["a", "a-1", "b-c"]
    );
    assert!(fits(&["a", "...", "d"], &["a", "b", "c", "d"]));
    assert!(fits(&["a", "..."], &["a"]));
    assert!(!fits(&["a", "b"], &["a", "c"]));
}
