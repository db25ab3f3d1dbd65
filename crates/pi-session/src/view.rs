//! The tree for display (Pi's `getTree`): roots, and each entry's children sorted by
//! timestamp, oldest first. Flat vectors rather than nested nodes, so a 100,000-entry chain
//! needs no recursion to build, walk or drop.

use crate::entry::Entry;
use crate::ids::iso_to_millis;
use crate::tree::Tree;

/// Roots and children of a session's entries.
#[derive(Debug)]
pub struct TreeView<'a> {
    tree: &'a Tree,
    roots: Vec<usize>,
    children: Vec<Vec<usize>>,
}

impl<'a> TreeView<'a> {
    pub(crate) fn new(tree: &'a Tree) -> Self {
        let count = tree.entries().len();
        let mut roots = Vec::new();
        let mut children = vec![Vec::new(); count];
        for position in 0..count {
            // An entry whose parent is missing is a root (Pi: "orphan - treat as root").
            match tree
                .parent(position)
                .and_then(|parent| children.get_mut(parent))
            {
                Some(siblings) => siblings.push(position),
                None => roots.push(position),
            }
        }
        let millis = |position: &usize| {
            tree.get(*position)
                .and_then(Entry::timestamp)
                .and_then(iso_to_millis)
                .unwrap_or(0)
        };
        for siblings in &mut children {
            siblings.sort_by_key(millis);
        }
        Self {
            tree,
            roots,
            children,
        }
    }

    /// The entries without a parent, in file order.
    pub fn roots(&self) -> impl Iterator<Item = &'a Entry> + '_ {
        self.roots
            .iter()
            .filter_map(|&position| self.tree.get(position))
    }

    /// The children of the entry `id`, oldest first.
    pub fn children(&self, id: &str) -> impl Iterator<Item = &'a Entry> + '_ {
        self.tree
            .position(id)
            .and_then(|position| self.children.get(position))
            .into_iter()
            .flatten()
            .filter_map(|&position| self.tree.get(position))
    }

    /// The label on the entry `id`.
    pub fn label(&self, id: &str) -> Option<&'a str> {
        self.tree.label(id).map(|label| label.text.as_str())
    }
}
