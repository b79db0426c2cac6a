//! A scripted USI engine that misbehaves on purpose, for the match runner's tests:
//! `fake-usi-engine [QUIRK] [--from N] [--seed N] [--random] [--log FILE] [--declare NAME]`
//! where QUIRK is one of `illegal`, `declare`, `slow:MS`, `crash`, `hang-ready`, `hang-go`,
//! `garbage`, `flood:LINES`, `script:MOVE,MOVE,...` (none: it plays like `gyoku engine`).
//! `--log` appends every line it is sent to FILE, so a test can read what the runner told
//! it; `--declare NAME` (repeatable) declares one more spin option, as engines that offer
//! YaneuraOu's `MaxMovesToDraw` do.

use std::io::{self, BufReader, Read, Write};
use std::time::Duration;

use gyoku_arena::builtin::{Config, Quirk, Style, run};

fn quirk(arg: &str) -> Result<Quirk, String> {
    let (name, value) = arg.split_once(':').unwrap_or((arg, ""));
    let number = || {
        value
            .parse::<u64>()
            .map_err(|_| format!("{arg}: expected a number"))
    };
    Ok(match name {
        "illegal" => Quirk::IllegalMove,
        "declare" => Quirk::AlwaysDeclare,
        "slow" => Quirk::Slow(Duration::from_millis(number()?)),
        "crash" => Quirk::Crash,
        "hang-ready" => Quirk::HangOnReady,
        "hang-go" => Quirk::HangOnGo,
        "garbage" => Quirk::Garbage,
        "flood" => Quirk::Flood(number()? as usize),
        "script" => Quirk::Script(
            value
                .split(',')
                .map(|m| m.parse().map_err(|e| format!("{m}: {e}")))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err(format!("unknown quirk '{arg}'")),
    })
}

/// Standard input, copied to a log file as it is read.
struct Tee<R> {
    input: R,
    log: Option<std::fs::File>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        if let Some(log) = &mut self.log {
            log.write_all(&buf[..n])?;
            log.flush()?;
        }
        Ok(n)
    }
}

/// Standard output, with option lines added before `usiok`.
struct Declaring<W> {
    output: W,
    options: Vec<String>,
    line: Vec<u8>,
}

impl<W: Write> Write for Declaring<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            self.line.push(b);
            if b == b'\n' {
                if self.line == b"usiok\n" {
                    for name in &self.options {
                        writeln!(
                            self.output,
                            "option name {name} type spin default 0 min 0 max 100000"
                        )?;
                    }
                }
                self.output.write_all(&self.line)?;
                self.line.clear();
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.output.write_all(&self.line)?;
        self.line.clear();
        self.output.flush()
    }
}

fn main() {
    let mut config = Config::default();
    let mut log = None;
    let mut declared = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let parsed = match arg.as_str() {
            "--from" => args
                .next()
                .and_then(|n| n.parse().ok())
                .map(|n| config.quirk_from = n)
                .ok_or_else(|| "--from needs a number".to_string()),
            "--seed" => args
                .next()
                .and_then(|n| n.parse().ok())
                .map(|n| config.seed = n)
                .ok_or_else(|| "--seed needs a number".to_string()),
            "--random" => {
                config.style = Style::Random;
                Ok(())
            }
            "--declare" => args
                .next()
                .map(|name| declared.push(name))
                .ok_or_else(|| "--declare needs an option name".to_string()),
            "--log" => args
                .next()
                .ok_or_else(|| "--log needs a file".to_string())
                .and_then(|path| {
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&path)
                        .map(|f| log = Some(f))
                        .map_err(|e| format!("{path}: {e}"))
                }),
            q => quirk(q).map(|q| config.quirk = Some(q)),
        };
        if let Err(e) = parsed {
            eprintln!("fake-usi-engine: {e}");
            std::process::exit(2);
        }
    }
    let input = BufReader::new(Tee {
        input: io::stdin().lock(),
        log,
    });
    let output = Declaring {
        output: io::stdout().lock(),
        options: declared,
        line: Vec::new(),
    };
    if let Err(e) = run(input, output, config) {
        eprintln!("fake-usi-engine: {e}");
    }
}
