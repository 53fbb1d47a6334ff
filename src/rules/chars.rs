//! RFC 1738 section 2.2 byte classes as 256-bit sets, plus the per-production
//! sets the explaining parser checks component text against.
//!
//! The sets mirror the productions of [`super::grammar`] one for one: when a
//! production there changes, the matching set here must change with it, or
//! the DFA verdict and the parser's explanation drift apart (the
//! `dfa_agrees_with_parser` tests catch that).

use crate::diag::Grammar;

/// A set of bytes, built at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    /// The empty set.
    pub const EMPTY: ByteSet = ByteSet([0; 4]);

    /// The set plus every byte of `chars`.
    pub const fn with(mut self, chars: &[u8]) -> ByteSet {
        let mut i = 0;
        while i < chars.len() {
            let b = chars[i];
            self.0[(b >> 6) as usize] |= 1 << (b & 63);
            i += 1;
        }
        self
    }

    /// The set minus every byte of `chars`.
    pub const fn without(mut self, chars: &[u8]) -> ByteSet {
        let mut i = 0;
        while i < chars.len() {
            let b = chars[i];
            self.0[(b >> 6) as usize] &= !(1 << (b & 63));
            i += 1;
        }
        self
    }

    /// The set plus the inclusive byte range `lo..=hi`.
    pub const fn with_range(mut self, lo: u8, hi: u8) -> ByteSet {
        let mut b = lo;
        loop {
            self.0[(b >> 6) as usize] |= 1 << (b & 63);
            if b == hi {
                break;
            }
            b += 1;
        }
        self
    }

    /// The union of two sets.
    pub const fn union(self, other: ByteSet) -> ByteSet {
        ByteSet([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    /// Whether `b` is in the set.
    #[inline]
    pub fn has(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }
}

/// `alpha = lowalpha | hialpha`
pub(crate) const ALPHA: ByteSet = ByteSet::EMPTY.with_range(b'a', b'z').with_range(b'A', b'Z');
/// `digit`
pub(crate) const DIGIT: ByteSet = ByteSet::EMPTY.with_range(b'0', b'9');
/// `hex`
pub(crate) const HEX: ByteSet = DIGIT.with_range(b'a', b'f').with_range(b'A', b'F');
/// `alphadigit`, plus `-` and `.`: every byte a host name may hold.
pub(crate) const HOSTNAME: ByteSet = ALPHA.union(DIGIT).with(b"-.");
/// `scheme = 1*[ lowalpha | digit | "+" | "-" | "." ]`, read ignoring case.
pub(crate) const SCHEME: ByteSet = ALPHA.union(DIGIT).with(b"+-.");
/// `safe`
const SAFE: ByteSet = ByteSet::EMPTY.with(b"$-_.+");
/// `extra`
const EXTRA: ByteSet = ByteSet::EMPTY.with(b"!*'(),");
/// `reserved`
pub(crate) const RESERVED: ByteSet = ByteSet::EMPTY.with(b";/?:@&=");
/// The unsafe characters of section 2.2 (`national` and `punctuation`, and
/// space), without `%`, which the escape check handles.
pub(crate) const UNSAFE: ByteSet = ByteSet::EMPTY.with(b" <>\"#{}|\\^~[]`");
/// `group = alpha *[ alpha | digit | "-" | "." | "+" | "_" ]` (news, nntp).
pub(crate) const GROUP: ByteSet = ALPHA.union(DIGIT).with(b"-.+_");
/// RFC 3986 `sub-delims`.
const SUB_DELIMS: ByteSet = ByteSet::EMPTY.with(b"!$&'()*+,;=");

/// The allowed (unescaped) bytes of each production that holds free text,
/// for one grammar. Escapes (`%` hex hex) are allowed in all of them and are
/// checked separately.
#[derive(Debug)]
pub(crate) struct Sets {
    /// `uchar` without escape, i.e. `unreserved`.
    pub uchar: ByteSet,
    /// `xchar` without escape.
    pub xchar: ByteSet,
    /// `user`
    pub user: ByteSet,
    /// `password`
    pub password: ByteSet,
    /// `fsegment` (ftp, file)
    pub fsegment: ByteSet,
    /// `hsegment` (http)
    pub hsegment: ByteSet,
    /// `search` (http, wais)
    pub search: ByteSet,
    /// The part of `article` before `@` (news).
    pub article: ByteSet,
    /// `psegment` (prospero)
    pub psegment: ByteSet,
    /// `fieldname`, `fieldvalue` (prospero)
    pub field: ByteSet,
    /// `xchar` without `@`: each side of an addr-spec (mailto, mid, cid).
    pub addr: ByteSet,
    /// RFC 3986 `pchar` without pct-encoded (generic syntax only).
    pub pchar: ByteSet,
    /// RFC 3986 `query` (generic syntax only).
    pub query: ByteSet,
    /// RFC 3986 `userinfo` (generic syntax only).
    pub userinfo: ByteSet,
    /// RFC 3986 `reg-name` (generic syntax only).
    pub regname: ByteSet,
    /// The fragment: `xchar` (in the modern profile also `[` and `]`).
    pub fragment: ByteSet,
}

const fn sets(unreserved: ByteSet, grammar: Grammar) -> Sets {
    let uchar = unreserved;
    let rfc3986 = matches!(grammar, Grammar::Rfc3986 | Grammar::Modern);
    // The modern profile takes `[` and `]` in a query or fragment as
    // browsers do (WHATWG URL: neither is in their percent-encode sets):
    // `?filter[lang][0]=x` and `#method[T]` are everyday links.
    let brackets: &[u8] = if matches!(grammar, Grammar::Modern) { b"[]" } else { b"" };
    let pchar = unreserved.union(SUB_DELIMS).with(b":@");
    Sets {
        uchar,
        xchar: uchar.union(RESERVED),
        // RFC 3986 ends the authority at `?`, so its userinfo cannot hold one.
        user: if rfc3986 { uchar.with(b";&=") } else { uchar.with(b";?&=") },
        password: if rfc3986 { uchar.with(b";&=:") } else { uchar.with(b";?&=") },
        fsegment: uchar.with(b"?:@&="),
        hsegment: uchar.with(b";:@&="),
        search: if rfc3986 { uchar.with(b";:@&=/?").with(brackets) } else { uchar.with(b";:@&=") },
        article: uchar.with(b";/?:&="),
        psegment: uchar.with(b"?:@&="),
        field: uchar.with(b"?:@&"),
        addr: uchar.union(RESERVED).without(b"@"),
        pchar,
        query: pchar.with(b"/?").with(brackets),
        userinfo: unreserved.union(SUB_DELIMS).with(b":"),
        regname: unreserved.union(SUB_DELIMS),
        fragment: uchar.union(RESERVED).with(brackets),
    }
}

/// `unreserved = alpha | digit | safe | extra`
const UNRESERVED_1738: ByteSet = ALPHA.union(DIGIT).union(SAFE).union(EXTRA);

/// The RFC 1738 sets.
pub(crate) const RFC1738_SETS: Sets = sets(UNRESERVED_1738, Grammar::Rfc1738);
/// The RFC 3986 sets: RFC 3986 adds `~` to `unreserved`; everything else
/// RFC 1738 called unreserved is a sub-delim there, equally free in paths.
pub(crate) const RFC3986_SETS: Sets = sets(UNRESERVED_1738.with(b"~"), Grammar::Rfc3986);
/// The modern profile's sets: RFC 3986's, with `[` and `]` in a query or
/// fragment.
pub(crate) const MODERN_SETS: Sets = sets(UNRESERVED_1738.with(b"~"), Grammar::Modern);

/// The sets for `grammar`.
pub(crate) fn sets_for(grammar: Grammar) -> &'static Sets {
    match grammar {
        Grammar::Rfc1738 => &RFC1738_SETS,
        Grammar::Rfc3986 => &RFC3986_SETS,
        Grammar::Modern => &MODERN_SETS,
    }
}

/// Whether `url[i..]` starts with an escape `%` hex hex.
#[inline]
pub(crate) fn is_escape(url: &[u8], i: usize) -> bool {
    url.len() > i + 2 && url[i] == b'%' && HEX.has(url[i + 1]) && HEX.has(url[i + 2])
}

/// Appends the `%XX` form of `b`.
pub(crate) fn push_encoded(out: &mut String, b: u8) {
    const HEXDIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(HEXDIGITS[usize::from(b >> 4)] as char);
    out.push(HEXDIGITS[usize::from(b & 15)] as char);
}

/// How a byte reads in a message: the character itself in backticks, or a
/// name for the invisible ones.
pub(crate) fn describe(b: u8) -> String {
    match b {
        b' ' => "space".to_string(),
        b'\t' => "TAB".to_string(),
        b'\n' => "LF".to_string(),
        b'\r' => "CR".to_string(),
        b'`' => "`` ` ``".to_string(),
        0x21..=0x7e => format!("`{}`", b as char),
        _ => format!("byte 0x{b:02X}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_partition_printable_ascii() {
        // Section 2.2: every printable byte is unreserved, reserved or unsafe
        // (or `%`), and no byte is two of these at once.
        for b in 0x20u8..0x7f {
            let n = [UNRESERVED_1738.has(b), RESERVED.has(b), UNSAFE.has(b), b == b'%']
                .iter()
                .filter(|x| **x)
                .count();
            assert_eq!(n, 1, "byte {:?}", b as char);
        }
    }

    #[test]
    fn rfc3986_differs_only_by_tilde_in_paths() {
        let a = &RFC1738_SETS;
        let b = &RFC3986_SETS;
        assert_eq!(a.hsegment.with(b"~"), b.hsegment);
        assert_eq!(a.fsegment.with(b"~"), b.fsegment);
        assert!(b.search.has(b'/') && !a.search.has(b'/'));
        assert!(a.user.has(b'?') && !b.user.has(b'?'));
    }

    #[test]
    fn escapes() {
        assert!(is_escape(b"a%2Fb", 1));
        assert!(!is_escape(b"a%2", 1));
        assert!(!is_escape(b"%zz", 0));
        let mut s = String::new();
        push_encoded(&mut s, b'~');
        assert_eq!(s, "%7E");
    }
}
