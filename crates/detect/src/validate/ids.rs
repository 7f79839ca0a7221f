//! Check digits and structure rules of the identifiers Tarnkappe adds (KVNR, USt-IdNr.,
//! ICAO 9303 document numbers, US SSN). Pure functions over ASCII bytes; none allocates or
//! panics, whatever the input.

/// ISO/IEC 7064 MOD 11,10 (hybrid system) check digit over decimal digit values (0–9): the
/// algorithm of the Steuer-ID (docs/entities.md §8.2) and of the German USt-IdNr.
pub fn mod11_10_check(digits: &[u8]) -> u8 {
    let mut product = 10u8;
    for &d in digits {
        let mut sum = (d % 10 + product) % 10;
        if sum == 0 {
            sum = 10;
        }
        product = (2 * sum) % 11;
    }
    match 11 - product {
        10 => 0,
        c => c,
    }
}

/// German USt-IdNr. without its `DE`: 9 digits, the first not 0, the 9th the MOD 11,10 check
/// digit of the first 8 (the method the Bundeszentralamt für Steuern publishes).
pub fn ust_id_de(digits: &[u8]) -> bool {
    if digits.len() != 9 || !digits.iter().all(u8::is_ascii_digit) || digits[0] == b'0' {
        return false;
    }
    let mut values = [0u8; 8];
    for (v, d) in values.iter_mut().zip(digits) {
        *v = d - b'0';
    }
    mod11_10_check(&values) == digits[8] - b'0'
}

/// Krankenversicherungsnummer (unveränderbarer Teil, § 290 SGB V): an upper-case letter, 8
/// digits and a check digit. The letter becomes its two-digit alphabet position (A = 01 …
/// Z = 26); the resulting 10 digits are weighted 1, 2, 1, 2, …, the digit sums of the products
/// are added, and the sum mod 10 is the check digit.
pub fn kvnr(v: &[u8]) -> bool {
    let [letter, rest @ ..] = v else {
        return false;
    };
    if rest.len() != 9 || !letter.is_ascii_uppercase() || !rest.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let pos = letter - b'A' + 1;
    let mut sum = 0u32;
    let values = [pos / 10, pos % 10]
        .into_iter()
        .chain(rest[..8].iter().map(|d| d - b'0'));
    for (i, d) in values.enumerate() {
        let p = u32::from(d) * if i % 2 == 0 { 1 } else { 2 };
        sum += p / 10 + p % 10;
    }
    sum % 10 == u32::from(rest[8] - b'0')
}

/// ICAO 9303 check digit (weights 7, 3, 1 repeating; digits count as themselves, `A`–`Z` as
/// 10–35, the filler `<` as 0). `None` for any other character.
pub fn icao_check_digit(chars: &[u8]) -> Option<u8> {
    let mut sum = 0u32;
    for (i, &c) in chars.iter().enumerate() {
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'Z' => c - b'A' + 10,
            b'<' => 0,
            _ => return None,
        };
        sum += u32::from(v) * [7, 3, 1][i % 3];
    }
    Some((sum % 10) as u8)
}

/// Characters of German ID card and passport numbers since 2010 (no vowels and no letters that
/// look like digits: B, D, E, I, O, Q, S, U are never used).
pub fn ausweis_char(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'C' | b'F'..=b'H' | b'J'..=b'N' | b'P' | b'R' | b'T' | b'V'..=b'Z')
}

/// Shape of a German document number (Personalausweis, Reisepass, since 2010): 9 characters
/// of [`ausweis_char`], the first a letter (`C F G H J K` passports, `L M N P R T V W X Y` ID
/// cards), at least three digits. The optional 10th character is the ICAO check digit, which
/// the caller tests with [`icao_check_digit`].
pub fn ausweis_number(v: &[u8]) -> bool {
    v.len() == 9
        && matches!(v[0], b'C' | b'F'..=b'H' | b'J'..=b'N' | b'P' | b'R' | b'T' | b'V'..=b'Y')
        && v.iter().all(|&c| ausweis_char(c))
        && v.iter().filter(|c| c.is_ascii_digit()).count() >= 3
}

/// US Social Security number from its three groups (area, group, serial), by the SSA's rules:
/// area not 000, 666 or 900–999; group not 00; serial not 0000. The two numbers printed in
/// advertising and on sample cards (078-05-1120, 219-09-9999) are refused as well.
pub fn us_ssn(area: u16, group: u8, serial: u16) -> bool {
    area != 0
        && area != 666
        && area < 900
        && group != 0
        && group < 100
        && serial != 0
        && serial < 10_000
        && (area, group, serial) != (78, 5, 1120)
        && (area, group, serial) != (219, 9, 9999)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ust_id_vectors() {
        // DE136695976: the sample the BZSt publishes; the others computed with the same method.
        for v in ["136695976", "811907980", "129273398"] {
            assert!(ust_id_de(v.as_bytes()), "{v}");
        }
        for v in [
            "136695977", // check digit should be 6
            "123456789", // should end in 8
            "036695976", // leading 0
            "13669597",  // 8 digits
            "1366959760",
            "13669597a",
        ] {
            assert!(!ust_id_de(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn steuer_id_uses_the_same_check() {
        // 86095742719 (docs/entities.md §8.2): check digit 9 over its first ten digits.
        assert_eq!(mod11_10_check(&[8, 6, 0, 9, 5, 7, 4, 2, 7, 1]), 9);
    }

    #[test]
    fn kvnr_vectors() {
        assert!(kvnr(b"A123456780"));
        for v in [
            "A123456781", // wrong check digit
            "a123456780", // lower-case letter
            "A12345678",  // 8 digits
            "A1234567800",
            "1123456780",
            "Ä12345678",
        ] {
            assert!(!kvnr(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn icao_vectors() {
        // Sample ID card T22000129 (check 3) and sample passport C01X00T47 (check 8), as printed
        // on the published specimen documents.
        assert_eq!(icao_check_digit(b"T22000129"), Some(3));
        assert_eq!(icao_check_digit(b"C01X00T47"), Some(8));
        assert_eq!(icao_check_digit(b"L01X00T47"), Some(1));
        assert_eq!(icao_check_digit(b"<<<"), Some(0));
        assert_eq!(icao_check_digit(b"t22"), None);
        assert!(ausweis_number(b"T22000129"));
        assert!(ausweis_number(b"C01X00T47"));
        for v in [
            "A22000129",
            "T2200012",
            "T2200012E",
            "TXYZKLM12",
            "122000129",
        ] {
            assert!(!ausweis_number(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn ssn_rules() {
        assert!(us_ssn(123, 45, 6789));
        assert!(us_ssn(899, 99, 9999));
        for (a, g, s) in [
            (0, 45, 6789),
            (666, 45, 6789),
            (900, 45, 6789),
            (123, 0, 6789),
            (123, 45, 0),
            (78, 5, 1120),
            (219, 9, 9999),
        ] {
            assert!(!us_ssn(a, g, s), "{a}-{g}-{s}");
        }
    }
}
