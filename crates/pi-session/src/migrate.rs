//! Pi's migrations, applied in memory on read: version 1 (a list without ids) gets ids and a
//! parent chain in file order, its compactions' `firstKeptEntryIndex` becomes
//! `firstKeptEntryId`; version 2 renames the message role `hookMessage` to `custom`.

use serde_json::Value;

use crate::ids::new_entry_id;

/// Brings the entry objects of a `version` file to version 3. Each value is paired with its
/// 1-based line number (unchanged here).
pub(crate) fn to_current(version: u64, entries: &mut [(usize, Value)]) {
    if version < 2 {
        v1_to_v2(entries);
    }
    if version < 3 {
        v2_to_v3(entries);
    }
}

fn v1_to_v2(entries: &mut [(usize, Value)]) {
    let mut taken = std::collections::HashSet::new();
    let mut previous: Option<String> = None;
    let mut ids = Vec::with_capacity(entries.len());
    for (_, value) in entries.iter_mut() {
        let id = new_entry_id(|candidate| taken.contains(candidate));
        taken.insert(id.clone());
        if let Value::Object(map) = value {
            map.insert("id".into(), id.clone().into());
            map.insert(
                "parentId".into(),
                previous.clone().map_or(Value::Null, Value::String),
            );
        }
        previous = Some(id.clone());
        ids.push(id);
    }
    for (_, value) in entries.iter_mut() {
        let Value::Object(map) = value else { continue };
        if map.get("type").and_then(Value::as_str) != Some("compaction") {
            continue;
        }
        let Some(index) = map.get("firstKeptEntryIndex").and_then(Value::as_u64) else {
            continue;
        };
        // Pi's index counts the header as entry 0.
        let target = usize::try_from(index)
            .ok()
            .and_then(|index| index.checked_sub(1))
            .and_then(|index| ids.get(index));
        if let Some(target) = target {
            map.insert("firstKeptEntryId".into(), target.clone().into());
        }
        map.shift_remove("firstKeptEntryIndex");
    }
}

fn v2_to_v3(entries: &mut [(usize, Value)]) {
    for (_, value) in entries.iter_mut() {
        let Value::Object(map) = value else { continue };
        if map.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(Value::Object(message)) = map.get_mut("message")
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), "custom".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v1_gets_a_chain_and_kept_ids() {
        let mut entries = vec![
            (
                2,
                json!({"type": "message", "message": {"role": "user", "content": "a"}}),
            ),
            (
                3,
                json!({"type": "message", "message": {"role": "hookMessage", "content": "b"}}),
            ),
            (
                4,
                json!({"type": "compaction", "summary": "s", "firstKeptEntryIndex": 2, "tokensBefore": 5}),
            ),
        ];
        to_current(1, &mut entries);
        let id = |i: usize| entries[i].1["id"].as_str().map(str::to_owned);
        assert_eq!(entries[0].1["parentId"], Value::Null);
        assert_eq!(entries[1].1["parentId"].as_str(), id(0).as_deref());
        assert_eq!(entries[2].1["parentId"].as_str(), id(1).as_deref());
        // Index 2 counts the header: the second entry.
        assert_eq!(entries[2].1["firstKeptEntryId"].as_str(), id(1).as_deref());
        assert!(entries[2].1.get("firstKeptEntryIndex").is_none());
        assert_eq!(entries[1].1["message"]["role"], "custom");
    }

    #[test]
    fn v2_keeps_ids_and_renames_hook_messages() {
        let mut entries = vec![(
            2,
            json!({"type": "message", "id": "abc12345", "parentId": null, "message": {"role": "hookMessage"}}),
        )];
        to_current(2, &mut entries);
        assert_eq!(entries[0].1["id"], "abc12345");
        assert_eq!(entries[0].1["message"]["role"], "custom");
    }
}
