//! The entries as a tree: an index by id (the later of two equal ids wins, as in Pi), each
//! entry's parent resolved once to a position, the labels, and the leaf. Walking from a leaf to
//! the root is one step per entry, so a context costs time linear in the path (Pi's deep
//! branches were quadratic until 0.79.9).

use std::collections::HashMap;

use crate::entry::{Entry, EntryKind};
use crate::report::{DuplicateId, LoadReport, MalformedEntry, Orphan};

/// A label on an entry and when it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label {
    pub(crate) text: String,
    pub(crate) timestamp: Option<String>,
    /// When the target first got a label: Pi re-emits labels in that order on a fork (a JS
    /// `Map` keeps a key's first position when its value changes).
    pub(crate) order: usize,
}

/// The tree of a session's entries.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tree {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    parents: Vec<Option<usize>>,
    labels: HashMap<String, Label>,
    label_count: usize,
    leaf: Option<usize>,
}

/// Parent links that loop: the ids on the loop, in child-to-parent order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CycleFound(pub Vec<String>);

impl Tree {
    /// The tree of `entries` in file order, its leaf the last entry. Duplicates, orphans and
    /// malformed entries go into `report`; a cycle of parent links is refused.
    /// `lines` holds each entry's 1-based line in the file, for the report.
    pub(crate) fn build(
        entries: Vec<Entry>,
        lines: &[usize],
        report: &mut LoadReport,
    ) -> Result<Self, CycleFound> {
        let mut tree = Tree {
            index: HashMap::with_capacity(entries.len()),
            ..Tree::default()
        };
        for (position, entry) in entries.iter().enumerate() {
            if tree.index.insert(entry.id().to_owned(), position).is_some() {
                report.duplicate_ids.push(DuplicateId {
                    id: entry.id().to_owned(),
                    line: lines.get(position).copied().unwrap_or_default(),
                });
            }
            if let Some(missing) = entry.malformed() {
                report.malformed.push(MalformedEntry {
                    id: entry.id().to_owned(),
                    entry_type: entry.entry_type().to_owned(),
                    missing,
                });
            }
        }
        tree.parents = entries
            .iter()
            .map(|entry| {
                let parent_id = entry.parent_id()?;
                let parent = tree.index.get(parent_id).copied();
                if parent.is_none() {
                    report.orphans.push(Orphan {
                        id: entry.id().to_owned(),
                        missing_parent: parent_id.to_owned(),
                    });
                }
                parent
            })
            .collect();
        tree.entries = entries;
        tree.find_cycle()?;
        for position in 0..tree.entries.len() {
            tree.apply_label(position);
        }
        // The leaf on load is the last entry in file order, looked up by id as Pi does.
        tree.leaf = tree
            .entries
            .last()
            .and_then(|entry| tree.index.get(entry.id()).copied());
        Ok(tree)
    }

    /// Every parent chain ends at a root, or the first loop found.
    fn find_cycle(&self) -> Result<(), CycleFound> {
        const NEW: u8 = 0;
        const ON_WALK: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.entries.len()];
        let mut walk = Vec::new();
        for start in 0..self.entries.len() {
            let mut current = Some(start);
            while let Some(position) = current {
                match state.get(position).copied() {
                    Some(NEW) => {
                        if let Some(slot) = state.get_mut(position) {
                            *slot = ON_WALK;
                        }
                        walk.push(position);
                        current = self.parents.get(position).copied().flatten();
                    }
                    Some(ON_WALK) => {
                        let from = walk.iter().position(|&p| p == position).unwrap_or(0);
                        let ids = walk
                            .get(from..)
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|&p| self.entries.get(p))
                            .map(|entry| entry.id().to_owned())
                            .collect();
                        return Err(CycleFound(ids));
                    }
                    _ => break,
                }
            }
            for position in walk.drain(..) {
                if let Some(slot) = state.get_mut(position) {
                    *slot = DONE;
                }
            }
        }
        Ok(())
    }

    fn apply_label(&mut self, position: usize) {
        // Only a label entry is parsed here: loading reads no other entry whole. A label's
        // line is in memory (only message lines stay in the file), so reading it cannot fail.
        let Some(entry) = self
            .entries
            .get(position)
            .filter(|entry| entry.entry_type() == "label")
        else {
            return;
        };
        if let Ok(EntryKind::Label { target_id, label }) = entry.kind() {
            match label {
                Some(text) => {
                    let order = match self.labels.get(target_id) {
                        Some(existing) => existing.order,
                        None => {
                            self.label_count += 1;
                            self.label_count
                        }
                    };
                    let label = Label {
                        text: text.to_owned(),
                        timestamp: entry.timestamp().map(str::to_owned),
                        order,
                    };
                    self.labels.insert(target_id.to_owned(), label);
                }
                None => {
                    self.labels.remove(target_id);
                }
            }
        }
    }

    /// Adds `entry` as the child of its `parentId` (which must be the leaf or absent) and makes
    /// it the leaf.
    pub(crate) fn push(&mut self, entry: Entry) {
        let position = self.entries.len();
        let parent = entry
            .parent_id()
            .and_then(|parent| self.index.get(parent).copied());
        self.index.insert(entry.id().to_owned(), position);
        self.parents.push(parent);
        self.entries.push(entry);
        self.apply_label(position);
        self.leaf = Some(position);
    }

    /// All entries in file order.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry at `position`.
    pub(crate) fn get(&self, position: usize) -> Option<&Entry> {
        self.entries.get(position)
    }

    /// The position of the entry with `id`.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// Whether an entry has `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// The parent position of the entry at `position`.
    pub(crate) fn parent(&self, position: usize) -> Option<usize> {
        self.parents.get(position).copied().flatten()
    }

    /// The leaf's position; `None` before the first entry.
    pub(crate) fn leaf(&self) -> Option<usize> {
        self.leaf
    }

    /// Moves the leaf.
    pub(crate) fn set_leaf(&mut self, leaf: Option<usize>) {
        self.leaf = leaf;
    }

    /// The label on the entry `id`.
    pub(crate) fn label(&self, id: &str) -> Option<&Label> {
        self.labels.get(id)
    }

    /// Every label, by target id.
    pub(crate) fn labels(&self) -> &HashMap<String, Label> {
        &self.labels
    }

    /// The positions from the root to `leaf`, in that order. Linear in the path's length;
    /// loops were refused when the tree was built.
    pub(crate) fn path(&self, leaf: Option<usize>) -> Vec<usize> {
        let mut path = Vec::new();
        let mut current = leaf.filter(|&position| position < self.entries.len());
        while let Some(position) = current {
            path.push(position);
            current = self.parent(position);
        }
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: &str, parent: Option<&str>) -> Entry {
        Entry::from_value(json!({"type": "custom", "customType": "t", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"})).unwrap()
    }

    #[test]
    fn cycles_are_refused_with_their_ids() {
        let mut report = LoadReport::default();
        let entries = vec![
            entry("r", None),
            entry("a", Some("c")),
            entry("b", Some("a")),
            entry("c", Some("b")),
        ];
        let error = Tree::build(entries, &[], &mut report).unwrap_err();
        let mut ids = error.0.clone();
        ids.sort();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn a_self_parent_is_a_cycle() {
        let mut report = LoadReport::default();
        let error = Tree::build(vec![entry("a", Some("a"))], &[], &mut report).unwrap_err();
        assert_eq!(error.0, ["a"]);
    }

    #[test]
    fn orphans_are_roots_and_reported() {
        let mut report = LoadReport::default();
        let tree = Tree::build(
            vec![entry("a", None), entry("b", Some("zz"))],
            &[],
            &mut report,
        )
        .unwrap();
        assert_eq!(tree.path(tree.leaf()), [1]);
        assert_eq!(
            report.orphans,
            [Orphan {
                id: "b".into(),
                missing_parent: "zz".into()
            }]
        );
    }

    #[test]
    fn the_later_duplicate_wins() {
        let mut report = LoadReport::default();
        let tree = Tree::build(
            vec![entry("a", None), entry("a", None), entry("b", Some("a"))],
            &[2, 3, 4],
            &mut report,
        )
        .unwrap();
        assert_eq!(tree.path(tree.leaf()), [1, 2]);
        assert_eq!(report.duplicate_ids.len(), 1);
    }
}
