//! Tool-call ids valid for the wire a request goes to.
//!
//! A transcript may hold ids another provider made (`fc_…` of 53 characters, Vertex's
//! `toolu_vrtx_…`, a local server's 32-character ids). Each wire has its rules: OpenAI Chat at
//! most 40 characters, Anthropic and Gemini `[A-Za-z0-9_-]{1,64}`. The same pure function maps
//! a call's id and its result's `toolCallId`, so pairs stay paired, and different ids stay
//! different (a changed id carries a hash of the original).

/// `id` as the wire with these limits accepts it: unchanged when it already fits.
pub(crate) fn wire_id(id: &str, max_len: usize) -> String {
    let fits = !id.is_empty()
        && id.len() <= max_len
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
    if fits {
        return id.to_owned();
    }
    let hash = format!("{:016x}", fnv1a(id.as_bytes()));
    let keep = max_len.saturating_sub(hash.len() + 1);
    let prefix: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(keep)
        .collect();
    if prefix.is_empty() {
        hash
    } else {
        format!("{prefix}_{hash}")
    }
}

/// FNV-1a, 64 bits: stable across runs and builds (std's hasher promises neither), so a
/// transcript replays with the same ids every time. Hand-written: eight lines.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_ids_stay_and_others_are_mapped_stably_and_distinctly() {
        assert_eq!(
            wire_id("call_SB7pIL63nRHhVPr41Ve8o9Ez", 40),
            "call_SB7pIL63nRHhVPr41Ve8o9Ez"
        );
        let responses = "fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e2";
        let mapped = wire_id(responses, 40);
        assert_eq!(mapped.len(), 40);
        assert_eq!(mapped, wire_id(responses, 40));
        let other = "fc_cb107ef919596a96f6ad98019a2bab3210fb5cc64571c699e3";
        assert_ne!(mapped, wire_id(other, 40));
        let odd = wire_id("call 1/2", 64);
        assert!(odd.starts_with("call_1_2_"), "{odd}");
        assert!(wire_id("", 64).len() == 16);
    }
}
