//! Tool-call ids valid for the wire a request goes to.
//!
//! A transcript may hold ids another provider made (`fc_…` of 53 characters, Vertex's
//! `toolu_vrtx_…`, a local server's 32-character ids). Each wire has its rules: OpenAI Chat at
//! most 40 characters, Anthropic and Gemini `[A-Za-z0-9_-]{1,64}`. The same pure function maps
//! a call's id and its result's `toolCallId`, so pairs stay paired, and different ids stay
//! different (a changed id carries a hash of the original).
//!
//! Ids are also made unique within one response ([`ResponseIds`]): a model may repeat one, or a
//! server may send `call_7` beside a call it left without an id, which the Chat wire names
//! `call_7` itself. Both calls would run and go back under one id, which OpenAI refuses. The
//! second becomes `call_7_2`; the assistant message keeps the new id, so its result is sent
//! back under it and the pair stays a pair on every wire.

use std::collections::HashSet;

use pi_ai::Fragment;

/// Every length limit [`wire_id`] is used with: two ids are the same on some wire when any of
/// these forms agree.
const WIRE_LIMITS: [usize; 2] = [40, 64];

/// The call ids seen in one response; each fragment that names a call gets an id no earlier
/// call of the response has on any wire.
#[derive(Debug, Default)]
pub(crate) struct ResponseIds {
    /// Every form (as sent, and as each wire limit maps it) of every id given out.
    taken: HashSet<String>,
}

impl ResponseIds {
    /// `fragment` with its call id made unique in the response (other fragments unchanged).
    pub(crate) fn fragment(&mut self, fragment: Fragment) -> Fragment {
        match fragment {
            Fragment::ToolStart { key, id, name } => Fragment::ToolStart {
                key,
                id: self.unique(id),
                name,
            },
            Fragment::ToolWhole {
                id,
                name,
                arguments,
                signature,
            } => Fragment::ToolWhole {
                id: self.unique(id),
                name,
                arguments,
                signature,
            },
            other => other,
        }
    }

    /// `id`, or when it is taken the first free `{id}_N` (N from 2). What goes back to the wire
    /// is compared: the part before a `|` (the Responses wire's `call_id|item_id` sends back
    /// only its `call_id`), and each form [`wire_id`] makes of it.
    fn unique(&mut self, id: String) -> String {
        let (call, item) = match id.split_once('|') {
            Some((call, item)) => (call, Some(item)),
            None => (id.as_str(), None),
        };
        if self.claim(call) {
            return id;
        }
        let mut n: u64 = 2;
        loop {
            let candidate = format!("{call}_{n}");
            if self.claim(&candidate) {
                return match item {
                    Some(item) => format!("{candidate}|{item}"),
                    None => candidate,
                };
            }
            n += 1;
        }
    }

    /// Takes every form of `call` when none is taken yet.
    fn claim(&mut self, call: &str) -> bool {
        let forms: Vec<String> = std::iter::once(call.to_owned())
            .chain(WIRE_LIMITS.iter().map(|limit| wire_id(call, *limit)))
            .collect();
        if forms.iter().any(|form| self.taken.contains(form)) {
            return false;
        }
        self.taken.extend(forms);
        true
    }
}

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

    fn start(ids: &mut ResponseIds, id: &str) -> String {
        match ids.fragment(Fragment::ToolStart {
            key: "k".into(),
            id: id.into(),
            name: "f".into(),
        }) {
            Fragment::ToolStart { id, .. } => id,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn repeated_ids_in_a_response_are_renamed_and_new_ones_kept() {
        let mut ids = ResponseIds::default();
        assert_eq!(start(&mut ids, "call_7"), "call_7");
        assert_eq!(start(&mut ids, "call_7"), "call_7_2");
        // A model that also sent `call_7_2` itself gets the next free name.
        assert_eq!(start(&mut ids, "call_7_2"), "call_7_2_2");
        assert_eq!(start(&mut ids, "call_7"), "call_7_3");
        assert_eq!(start(&mut ids, "call_8"), "call_8");
        // Gemini's whole calls too.
        let whole = ids.fragment(Fragment::ToolWhole {
            id: "call_8".into(),
            name: "f".into(),
            arguments: serde_json::json!({}),
            signature: None,
        });
        assert!(matches!(whole, Fragment::ToolWhole { id, .. } if id == "call_8_2"));
        // A new response starts afresh.
        assert_eq!(start(&mut ResponseIds::default(), "call_7"), "call_7");
    }

    #[test]
    fn ids_the_same_on_a_wire_count_as_the_same() {
        let mut ids = ResponseIds::default();
        // The Responses wire sends back the part before `|`.
        assert_eq!(start(&mut ids, "call_1|fc_a"), "call_1|fc_a");
        assert_eq!(start(&mut ids, "call_1|fc_b"), "call_1_2|fc_b");
        // An id made to equal another's mapped form on a wire.
        let odd = "call 9";
        let mapped = wire_id(odd, 40);
        assert_eq!(start(&mut ids, odd), odd);
        let renamed = start(&mut ids, &mapped);
        assert_ne!(renamed, mapped);
        for limit in WIRE_LIMITS {
            assert_ne!(wire_id(&renamed, limit), wire_id(odd, limit));
        }
    }

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
