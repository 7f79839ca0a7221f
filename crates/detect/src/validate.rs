//! Check-digit algorithms and structural validators as pure functions over ASCII digits/letters.
//! None of them allocates or panics, whatever the input. The added identifiers live in
//! [`ids`], the shapes of secrets in [`secret`].

mod ids;
pub mod secret;

pub use ids::{
    ausweis_char, ausweis_number, icao_check_digit, kvnr, mod11_10_check, us_ssn, ust_id_de,
};

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
    let compact = iban
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'-')
        .map(|b| b.to_ascii_uppercase());
    let mut head = [0u8; 4];
    let mut n = 0usize;
    let mut rem = 0u32;
    for b in compact {
        if !b.is_ascii_alphanumeric() {
            return false;
        }
        if n < 4 {
            head[n] = b;
        } else {
            rem = mod97_step(rem, b);
        }
        n += 1;
    }
    if n < 5 {
        return false;
    }
    for b in head {
        rem = mod97_step(rem, b);
    }
    rem == 1
}

/// ISO 7064 MOD 97-10 over the letters and digits of `value` as written (letters count 10–35,
/// case-insensitive; other characters are ignored): true when the number is 1 modulo 97.
pub fn mod97_10(value: &str) -> bool {
    let mut rem = 0u32;
    let mut n = 0;
    for b in value.bytes().filter(u8::is_ascii_alphanumeric) {
        rem = mod97_step(rem, b.to_ascii_uppercase());
        n += 1;
    }
    n > 1 && rem == 1
}

fn mod97_step(rem: u32, b: u8) -> u32 {
    if b.is_ascii_digit() {
        (rem * 10 + u32::from(b - b'0')) % 97
    } else {
        (rem * 100 + u32::from(b - b'A') + 10) % 97
    }
}

/// Length of an IBAN per registry country (the IBAN registry), by country code.
const IBAN_LENGTHS: &[(&[u8; 2], usize)] = &[
    (b"AD", 24),
    (b"AE", 23),
    (b"AL", 28),
    (b"AT", 20),
    (b"AZ", 28),
    (b"BA", 20),
    (b"BE", 16),
    (b"BG", 22),
    (b"BH", 22),
    (b"BI", 27),
    (b"BR", 29),
    (b"BY", 28),
    (b"CH", 21),
    (b"CR", 22),
    (b"CY", 28),
    (b"CZ", 24),
    (b"DE", 22),
    (b"DJ", 27),
    (b"DK", 18),
    (b"DO", 28),
    (b"EE", 20),
    (b"EG", 29),
    (b"ES", 24),
    (b"FI", 18),
    (b"FK", 18),
    (b"FO", 18),
    (b"FR", 27),
    (b"GB", 22),
    (b"GE", 22),
    (b"GI", 23),
    (b"GL", 18),
    (b"GR", 27),
    (b"GT", 28),
    (b"HN", 28),
    (b"HR", 21),
    (b"HU", 28),
    (b"IE", 22),
    (b"IL", 23),
    (b"IQ", 23),
    (b"IS", 26),
    (b"IT", 27),
    (b"JO", 30),
    (b"KW", 30),
    (b"KZ", 20),
    (b"LB", 28),
    (b"LC", 32),
    (b"LI", 21),
    (b"LT", 20),
    (b"LU", 20),
    (b"LV", 21),
    (b"LY", 25),
    (b"MC", 27),
    (b"MD", 24),
    (b"ME", 22),
    (b"MK", 19),
    (b"MN", 20),
    (b"MR", 27),
    (b"MT", 31),
    (b"MU", 30),
    (b"NI", 28),
    (b"NL", 18),
    (b"NO", 15),
    (b"OM", 23),
    (b"PK", 24),
    (b"PL", 28),
    (b"PS", 29),
    (b"PT", 25),
    (b"QA", 29),
    (b"RO", 24),
    (b"RS", 22),
    (b"RU", 33),
    (b"SA", 24),
    (b"SC", 31),
    (b"SD", 18),
    (b"SE", 24),
    (b"SI", 19),
    (b"SK", 24),
    (b"SM", 27),
    (b"SO", 23),
    (b"ST", 25),
    (b"SV", 28),
    (b"TL", 23),
    (b"TN", 24),
    (b"TR", 26),
    (b"UA", 29),
    (b"VA", 22),
    (b"VG", 24),
    (b"XK", 20),
    (b"YE", 30),
];

/// IBAN length of a registry country (SWIFT IBAN Registry, docs/entities.md Appendix A).
pub fn iban_length(country: &[u8]) -> Option<usize> {
    if country.len() != 2 {
        return None;
    }
    let cc = [
        country[0].to_ascii_uppercase(),
        country[1].to_ascii_uppercase(),
    ];
    IBAN_LENGTHS
        .iter()
        .find(|(c, _)| **c == cc)
        .map(|&(_, n)| n)
}

/// Full IBAN check on the compact form: registry country and length, check digits 02–98, mod 97.
pub fn iban(compact_upper: &str) -> bool {
    let b = compact_upper.as_bytes();
    if b.len() < 15 || !b.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    if iban_length(&b[..2]) != Some(b.len()) || !b[2].is_ascii_digit() || !b[3].is_ascii_digit() {
        return false;
    }
    let check = (b[2] - b'0') * 10 + (b[3] - b'0');
    (2..=98).contains(&check) && iban_mod97(compact_upper)
}

/// Steuer-ID (§ 139b AO): 11 digits, first ≠ 0, digit-repetition rule on digits 1–10,
/// ISO/IEC 7064 MOD 11,10 check digit.
pub fn steuer_id(digits: &[u8]) -> bool {
    if digits.len() != 11 || !digits.iter().all(u8::is_ascii_digit) || digits[0] == b'0' {
        return false;
    }
    let d: Vec<u8> = digits.iter().map(|b| b - b'0').collect();
    let mut counts = [0u8; 10];
    for &x in &d[..10] {
        counts[usize::from(x)] += 1;
    }
    let repeated: Vec<usize> = (0..10).filter(|&i| counts[i] > 1).collect();
    if repeated.len() != 1 || !(2..=3).contains(&counts[repeated[0]]) {
        return false;
    }
    let r = repeated[0] as u8;
    if d[..10].windows(3).any(|w| w.iter().all(|&x| x == r)) {
        return false;
    }
    mod11_10_check(&d[..10]) == d[10]
}

/// Bereichsnummern accepted in strict mode (docs/entities.md §10.2).
pub fn sv_bereich_known(b: u8) -> bool {
    matches!(b, 2..=4 | 8..=21 | 23..=26 | 28 | 38 | 39 | 42..=44 | 48..=61 | 63..=66 | 68 | 80..=82 | 89)
}

/// SV-Nummer: 2 digits Bereich, DDMMYY, letter, 2 digits serial, check digit (12 chars, compact).
/// Returns `Some(strict)` when structure, date field and check digit pass; `strict` tells whether
/// the Bereichsnummer is a known one.
pub fn sv_nummer(compact: &[u8]) -> Option<bool> {
    if compact.len() != 12 {
        return None;
    }
    let (digits_a, letter, digits_b) = (&compact[..8], compact[8], &compact[9..]);
    if !digits_a.iter().all(u8::is_ascii_digit)
        || !digits_b.iter().all(u8::is_ascii_digit)
        || !letter.is_ascii_alphabetic()
    {
        return None;
    }
    let num = |i: usize| u32::from(compact[i] - b'0');
    let (dd, mm) = (num(2) * 10 + num(3), num(4) * 10 + num(5));
    let day = match dd {
        96.. => dd - 96,
        64.. => dd - 64,
        32.. => dd - 32,
        _ => dd,
    };
    if mm > 12 || day > 31 {
        return None;
    }
    if mm != 0 && day != 0 && day > days_in_month(2000, mm) {
        return None;
    }
    let l = u32::from(letter.to_ascii_uppercase() - b'A') + 1;
    let values = [
        num(0),
        num(1),
        num(2),
        num(3),
        num(4),
        num(5),
        num(6),
        num(7),
        l / 10,
        l % 10,
        num(9),
        num(10),
    ];
    const W: [u32; 12] = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1];
    let sum: u32 = values
        .iter()
        .zip(W)
        .map(|(v, w)| {
            let p = v * w;
            p / 10 + p % 10
        })
        .sum();
    (sum % 10 == num(11)).then(|| sv_bereich_known((num(0) * 10 + num(1)) as u8))
}

/// True for Gregorian leap years.
pub fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Days in `month` (1–12) of `year`; 0 for an invalid month.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Calendar-valid date with a 4-digit year in 1900–2100.
pub fn date(year: u32, month: u32, day: u32) -> bool {
    (1900..=2100).contains(&year) && day >= 1 && day <= days_in_month(year, month)
}

/// Expands a 2-digit year: 20YY when not after the current century's 30s, else 19YY.
pub fn expand_year(yy: u32) -> u32 {
    if yy <= 30 {
        2000 + yy
    } else {
        1900 + yy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_vectors() {
        assert!(luhn("4111 1111 1111 1111"));
        assert!(luhn("5500-0000-0000-0004"));
        assert!(luhn("4012888888881881"));
        assert!(luhn("3782 822463 10005"));
        assert!(!luhn("4111 1111 1111 1112"));
        assert!(!luhn("378282246310006"));
        assert!(!luhn("0"));
    }

    #[test]
    fn iban_vectors() {
        for v in [
            "DE89370400440532013000",
            "DE02120300000000202051",
            "DE09100100101234567890",
            "DE12500105170648489890",
            "AT611904300234573201",
            "CH9300762011623852957",
            "GB82WEST12345698765432",
            "NL91ABNA0417164300",
            "FR1420041010050500013M02606",
        ] {
            assert!(iban(v), "{v}");
        }
        for v in [
            "DE89370400440532013001",
            "DE8937040044053201300",
            "XX89370400440532013000",
            "DE00370400440532013000",
            "AT611904300234573202",
            "CH9300762011623852958",
            "DE98ZZZ09999999999",
        ] {
            assert!(!iban(v), "{v}");
        }
        assert!(iban_mod97("de89 3704 0044 0532 0130 00"));
        assert!(!iban_mod97("DE8"));
    }

    #[test]
    fn steuer_id_vectors() {
        for v in [
            "86095742719",
            "47036892816",
            "65929970489",
            "57549285017",
            "25768131411",
            "76123948575",
            "52038659144",
        ] {
            assert!(steuer_id(v.as_bytes()), "{v}");
        }
        for v in [
            "02476291358",
            "86095742718",
            "12345678903",
            "11123456786",
            "11223456785",
            "8609574271",
            "860957427190",
        ] {
            assert!(!steuer_id(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn sv_nummer_vectors() {
        for v in [
            "65180539W001",
            "14311239W008",
            "12150485M550",
            "53270790S025",
            "04010100A498",
            "25290204K513",
            "15330764B129",
            "42311299Z509",
            "65180539w001",
        ] {
            assert_eq!(sv_nummer(v.as_bytes()), Some(true), "{v}");
        }
        for v in [
            "65180539W002",
            "12151385M011",
            "121504850012",
            "65180539W00",
        ] {
            assert_eq!(sv_nummer(v.as_bytes()), None, "{v}");
        }
        // Check digit consistent but unknown Bereichsnummer: lenient only.
        assert_eq!(sv_nummer(b"00150485M556"), Some(false));
        assert_eq!(sv_nummer(b"99150485M554"), Some(false));
    }

    #[test]
    fn calendar() {
        assert!(date(2024, 2, 29));
        assert!(date(2000, 2, 29));
        assert!(!date(2023, 2, 29));
        assert!(!date(1900, 2, 29));
        assert!(!date(2021, 4, 31));
        assert!(!date(2020, 1, 32));
        assert!(!date(2020, 13, 12));
    }
}
