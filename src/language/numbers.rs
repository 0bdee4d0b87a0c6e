//! Numbers as a person reads them, the same in both languages: a count
//! with thousands separated (`41,200`), a span of time (`1h02m`, `3m10s`,
//! `42s`).

/// 41200 -> "41,200".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1h02m`, `3m10s`, `42s`.
pub fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(41_200), "41,200");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(clock(42.4), "42s");
        assert_eq!(clock(190.0), "3m10s");
        assert_eq!(clock(3720.0), "1h02m");
    }
}
