//! Text encodings of record files, detected from the bytes (never from the file name
//! alone): a UTF-8 BOM or valid UTF-8 is UTF-8; a CSA V3.0 `'CSA encoding=` line or a KIF
//! `#KIF ... encoding=` line is believed; otherwise Shift_JIS (Windows-31J) and EUC-JP are
//! both tried and the one that decodes without errors (Shift_JIS first, the common case)
//! wins.

use encoding_rs::{EUC_JP, SHIFT_JIS, UTF_8};

/// A text encoding of a record file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 (a BOM, if any, is dropped).
    Utf8,
    /// Shift_JIS, read as Windows-31J (cp932).
    ShiftJis,
    /// EUC-JP (old Floodgate logs).
    EucJp,
}

impl Encoding {
    /// The name: `UTF-8`, `Shift_JIS`, `EUC-JP`.
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::ShiftJis => "Shift_JIS",
            Encoding::EucJp => "EUC-JP",
        }
    }

    fn codec(self) -> &'static encoding_rs::Encoding {
        match self {
            Encoding::Utf8 => UTF_8,
            Encoding::ShiftJis => SHIFT_JIS,
            Encoding::EucJp => EUC_JP,
        }
    }

    /// Decodes `bytes` in this encoding (a malformed sequence becomes U+FFFD).
    pub fn decode(self, bytes: &[u8]) -> String {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        self.codec()
            .decode_without_bom_handling(bytes)
            .0
            .into_owned()
    }

    /// Encodes `text`; characters the encoding cannot hold become numeric references
    /// (as encoding_rs writes them) rather than failing.
    pub fn encode(self, text: &str) -> Vec<u8> {
        match self {
            Encoding::Utf8 => text.as_bytes().to_vec(),
            _ => self.codec().encode(text).0.into_owned(),
        }
    }
}

/// Looks for `encoding=NAME` in the first line.
fn declared(bytes: &[u8]) -> Option<Encoding> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(first).ok()?.to_ascii_lowercase();
    let at = line.find("encoding=")?;
    let name = line[at + 9..].trim();
    if name.starts_with("utf-8") || name.starts_with("utf8") {
        Some(Encoding::Utf8)
    } else if name.starts_with("shift_jis")
        || name.starts_with("shift-jis")
        || name.starts_with("sjis")
        || name.starts_with("cp932")
        || name.starts_with("windows-31j")
    {
        Some(Encoding::ShiftJis)
    } else if name.starts_with("euc-jp") || name.starts_with("euc_jp") || name.starts_with("eucjp")
    {
        Some(Encoding::EucJp)
    } else {
        None
    }
}

/// Detects the encoding of `bytes` and decodes them.
///
/// ```
/// use gyoku_kifu::encoding::{decode, Encoding};
/// let (text, enc) = decode("先手：羽生".as_bytes());
/// assert_eq!((text.as_str(), enc), ("先手：羽生", Encoding::Utf8));
/// let sjis = Encoding::ShiftJis.encode("先手：羽生");
/// assert_eq!(decode(&sjis), ("先手：羽生".to_string(), Encoding::ShiftJis));
/// ```
pub fn decode(bytes: &[u8]) -> (String, Encoding) {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return (String::from_utf8_lossy(rest).into_owned(), Encoding::Utf8);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), Encoding::Utf8);
    }
    let order = match declared(bytes) {
        Some(Encoding::EucJp) => [Encoding::EucJp, Encoding::ShiftJis],
        _ => [Encoding::ShiftJis, Encoding::EucJp],
    };
    for enc in order {
        let (text, had_errors) = enc.codec().decode_without_bom_handling(bytes);
        if !had_errors {
            return (text.into_owned(), enc);
        }
    }
    let (text, _) = SHIFT_JIS.decode_without_bom_handling(bytes);
    (text.into_owned(), Encoding::ShiftJis)
}
