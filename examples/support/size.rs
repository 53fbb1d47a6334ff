//! Sizes on the examples' command lines.

/// `123`, `64K`, `10M`, `1G` (powers of 1024); `None` if it is not one.
pub fn parse_size(s: &str) -> Option<usize> {
    let (num, mul) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1usize << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<usize>().ok().and_then(|n| n.checked_mul(mul))
}
