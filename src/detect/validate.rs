//! Check-digit algorithms and structural validators as pure functions over ASCII digits/letters.

/// Luhn (mod 10) over the decimal digits of `digits` (other characters are ignored).
pub fn luhn(digits: &str) -> bool {
    let mut sum = 0u32;
    let mut count = 0;
    for (i, d) in digits
        .bytes()
        .rev()
        .filter(u8::is_ascii_digit)
        .map(|b| u32::from(b - b'0'))
        .enumerate()
    {
        let v = if i % 2 == 1 { d * 2 } else { d };
        sum += if v > 9 { v - 9 } else { v };
        count += 1;
    }
    count > 1 && sum.is_multiple_of(10)
}

/// ISO 13616 / ISO 7064 MOD 97-10 over an IBAN (spaces ignored, letters case-insensitive).
pub fn iban_mod97(iban: &str) -> bool {
    let compact: Vec<u8> = iban
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| b.to_ascii_uppercase())
        .collect();
    if compact.len() < 5 || !compact.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let rearranged = compact[4..].iter().chain(&compact[..4]);
    let mut rem = 0u32;
    for &b in rearranged {
        if b.is_ascii_digit() {
            rem = (rem * 10 + u32::from(b - b'0')) % 97;
        } else {
            rem = (rem * 100 + u32::from(b - b'A') + 10) % 97;
        }
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_vectors() {
        assert!(luhn("4111 1111 1111 1111"));
        assert!(luhn("5500-0000-0000-0004"));
        assert!(!luhn("4111 1111 1111 1112"));
        assert!(!luhn("0"));
    }

    #[test]
    fn iban_vectors() {
        assert!(iban_mod97("DE89 3704 0044 0532 0130 00"));
        assert!(iban_mod97("de89370400440532013000"));
        assert!(!iban_mod97("DE89 3704 0044 0532 0130 01"));
        assert!(!iban_mod97("DE8"));
    }
}
