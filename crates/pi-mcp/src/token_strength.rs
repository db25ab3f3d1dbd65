//! How hard a bearer token is to guess, judged from its shape.
//!
//! The rule: the token's length times log2 of the smallest common token alphabet that holds
//! every character it uses (decimal digits 10, hexadecimal 16, letters of one case 26, one case
//! and digits 36, letters 52, letters and digits 62, base64 or base64url 64, any printable
//! ASCII 93). That is the most a token of that shape can hold, reached only when each character
//! is drawn at random: `openssl rand -hex 16` (32 characters, 128 bits) or 22 base64url
//! characters (132 bits) just pass; a word, a name or `aaaa…` of the same length holds far less,
//! and no rule on the text alone can tell.

/// The fewest bits a token must hold to serve on an address other machines can reach.
pub const MIN_TOKEN_BITS: u32 = 128;

/// What a token's shape allows it to hold (see the module's rule).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenStrength {
    /// Its length in characters.
    pub length: usize,
    /// The alphabet its characters were judged to come from.
    pub alphabet: &'static str,
    /// How many characters that alphabet has.
    pub alphabet_size: u32,
    /// `length × log2(alphabet_size)`: the most it can hold.
    pub bits: f64,
}

/// An alphabet: its name, its size, and whether a character is in it.
type Alphabet = (&'static str, u32, fn(u8) -> bool);

/// The alphabets tried, smallest first: a token is judged by the first that holds it whole.
const ALPHABETS: [Alphabet; 11] = [
    ("decimal digits", 10, |byte| byte.is_ascii_digit()),
    ("hexadecimal digits", 16, |byte| byte.is_ascii_hexdigit()),
    ("lowercase letters", 26, |byte| byte.is_ascii_lowercase()),
    ("uppercase letters", 26, |byte| byte.is_ascii_uppercase()),
    ("lowercase letters and digits", 36, |byte| {
        byte.is_ascii_lowercase() || byte.is_ascii_digit()
    }),
    ("uppercase letters and digits", 36, |byte| {
        byte.is_ascii_uppercase() || byte.is_ascii_digit()
    }),
    ("letters", 52, |byte| byte.is_ascii_alphabetic()),
    ("letters and digits", 62, |byte| {
        byte.is_ascii_alphanumeric()
    }),
    ("base64url", 64, |byte| {
        byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'
    }),
    ("base64", 64, |byte| {
        byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
    }),
    // What `HttpAccess::new` accepts: visible ASCII but the comma.
    ("printable ASCII", 93, |byte| byte.is_ascii_graphic()),
];

impl TokenStrength {
    /// The strength of `token`.
    pub fn of(token: &str) -> Self {
        let (alphabet, alphabet_size) = ALPHABETS
            .iter()
            .find(|(_, _, holds)| token.bytes().all(holds))
            .map_or(("any characters", 256), |&(name, size, _)| (name, size));
        let length = token.chars().count();
        #[expect(
            clippy::cast_precision_loss,
            reason = "a token's length is far below 2^52"
        )]
        let bits = length as f64 * f64::from(alphabet_size).log2();
        Self {
            length,
            alphabet,
            alphabet_size,
            bits,
        }
    }

    /// Whether it may guard an address other machines can reach: at least
    /// [`MIN_TOKEN_BITS`].
    pub fn is_enough(&self) -> bool {
        self.bits >= f64::from(MIN_TOKEN_BITS)
    }
}

impl std::fmt::Display for TokenStrength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the token holds at most {:.0} bits ({} characters of {}, {} possible each); \
             {MIN_TOKEN_BITS} are needed: 32 random hexadecimal or 22 random base64url \
             characters (e.g. `openssl rand -hex 32`)",
            self.bits.floor(),
            self.length,
            self.alphabet,
            self.alphabet_size
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tokens_of_the_documented_lengths_pass_and_one_character_less_does_not() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(TokenStrength::of(hex).bits, 128.0);
        assert!(TokenStrength::of(hex).is_enough());
        assert!(!TokenStrength::of(&hex[1..]).is_enough());
        let base64url = "Zq-_09azAZ09azAZ09azAZ";
        assert_eq!(TokenStrength::of(base64url).alphabet, "base64url");
        assert!(TokenStrength::of(base64url).is_enough());
        assert!(!TokenStrength::of(&base64url[1..]).is_enough());
    }

    #[test]
    fn the_smallest_alphabet_holding_the_token_is_the_one_counted() {
        let strength = TokenStrength::of("zq");
        assert_eq!(
            (strength.alphabet, strength.alphabet_size),
            ("lowercase letters", 26)
        );
        assert!(strength.bits < 10.0);
        // Decimal digits alone are not counted as hexadecimal, nor hexadecimal as letters.
        assert_eq!(TokenStrength::of("0123").alphabet_size, 10);
        assert_eq!(TokenStrength::of("c0ffee").alphabet_size, 16);
        assert_eq!(TokenStrength::of("Pa55w0rd!").alphabet_size, 93);
    }

    #[test]
    fn the_refusal_says_what_was_counted_and_what_is_needed() {
        let text = TokenStrength::of("zq").to_string();
        assert!(text.starts_with("the token holds at most 9 bits (2 characters of lowercase letters, 26 possible each); 128 are needed"), "{text}");
    }
}
