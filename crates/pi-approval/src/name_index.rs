//! Which rules of a list could match a call, found from the tool's name instead of trying
//! every rule: exact tool names in a hash map, wildcard names (`mcp_github_*`) grouped by the
//! literal text before their first `*`. Built once with the policy. It only narrows the
//! search: every candidate is still matched in full, in list order, so the first match is
//! the same as a scan of the whole list would find.

use std::collections::HashMap;

use crate::policy::Compiled;
use crate::rule::Specifier;

/// The rules of one list by tool name.
#[derive(Debug, Default)]
struct ByName {
    /// Positions of rules whose tool name has no `*`, by that name (foldhash: looked up on
    /// every decision, where the default SipHash cost more than the rest of the lookup).
    exact: HashMap<String, Vec<usize>, foldhash::fast::RandomState>,
    /// Positions of rules whose tool name has a `*`, by the text before the first `*`.
    wildcard: Vec<(String, Vec<usize>)>,
}

impl ByName {
    fn add(&mut self, name: &str, position: usize) {
        match name.split_once('*') {
            None => self
                .exact
                .entry(name.to_owned())
                .or_default()
                .push(position),
            Some((prefix, _)) => {
                match self.wildcard.iter_mut().find(|(known, _)| known == prefix) {
                    Some((_, positions)) => positions.push(position),
                    None => self.wildcard.push((prefix.to_owned(), vec![position])),
                }
            }
        }
    }

    /// Adds the positions of the rules whose name may stand for `tool`.
    fn candidates(&self, tool: &str, out: &mut Vec<usize>) {
        self.exact_only(tool, out);
        for (prefix, positions) in &self.wildcard {
            if tool.starts_with(prefix.as_str()) {
                out.extend_from_slice(positions);
            }
        }
    }

    /// Adds the positions of the rules named exactly `name` (a rule on `read` covering
    /// `grep` is named `read` as written, never through a wildcard).
    fn exact_only(&self, name: &str, out: &mut Vec<usize>) {
        if let Some(positions) = self.exact.get(name) {
            out.extend_from_slice(positions);
        }
    }
}

/// The rules of one list by tool name, path-glob rules apart: for a call with a path, those
/// come from the list's path index instead (only the globs matching the path).
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    /// Rules that are not compiled path globs: bare names, commands, broken globs.
    plain: ByName,
    /// Rules with a compiled path glob.
    globs: ByName,
}

impl NameIndex {
    /// Indexes a list.
    pub(crate) fn new(list: &[Compiled]) -> Self {
        let mut index = Self::default();
        for compiled in list {
            let name = compiled.entry.rule.tool().as_str();
            let is_glob = matches!(
                (compiled.entry.rule.specifier(), &compiled.path),
                (Specifier::Path(_), Some(Ok(_)))
            );
            let side = if is_glob {
                &mut index.globs
            } else {
                &mut index.plain
            };
            side.add(name, compiled.position);
        }
        index
    }

    /// The positions, ascending and once each, of the rules that may match a call of `tool`.
    /// `covering` names the tool whose path rules also hold for this one (`read` for
    /// `grep`); `glob_hits` are the path rules whose glob matches the call's path, or `None`
    /// when the call has no path (then every path rule of the name is a candidate).
    pub(crate) fn candidates(
        &self,
        tool: &str,
        covering: Option<&str>,
        glob_hits: Option<&[usize]>,
    ) -> Vec<usize> {
        let mut out = Vec::new();
        self.plain.candidates(tool, &mut out);
        if let Some(covering) = covering {
            self.plain.exact_only(covering, &mut out);
        }
        match glob_hits {
            Some(hits) => out.extend_from_slice(hits),
            None => {
                self.globs.candidates(tool, &mut out);
                if let Some(covering) = covering {
                    self.globs.exact_only(covering, &mut out);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
