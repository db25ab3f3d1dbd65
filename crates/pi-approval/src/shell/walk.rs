//! The walk over tree-sitter-bash's syntax tree: statements, redirections and substitutions.
//! Words are read in `words.rs`, simple commands judged in `command.rs`.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Tree};

use super::{SimpleCommand, Split, Unprovable};

/// How deep `bash -c '...'` inside `eval ...` inside ... is followed before giving up.
const MAX_DEPTH: usize = 4;

/// How deep syntax (subshells in subshells, `$(` in `$(`) is walked before giving up: the walk
/// recurses, and a line of 20,000 `(` must not overflow the stack.
const MAX_NESTING: usize = 128;

thread_local! {
    /// A parser per thread: making one loads the grammar, which is worth doing once.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `line`; `None` only if the grammar cannot be loaded (a build mismatch).
fn parse(line: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(line, None)
    })
}

/// Splits `line`, `depth` levels down from the line the model wrote.
pub(super) fn split(line: &str, depth: usize) -> Split {
    let mut walker = Walker::new(line.as_bytes(), depth);
    if depth > MAX_DEPTH {
        walker.unprovable(Unprovable::TooDeep);
        walker.unresolved(line.to_owned());
        return walker.split;
    }
    match parse(line) {
        None => {
            walker.unprovable(Unprovable::Unparsable);
            walker.unresolved(line.to_owned());
        }
        Some(tree) => {
            let root = tree.root_node();
            if root.has_error() {
                walker.unprovable(Unprovable::Unparsable);
                walker.unresolved(line.to_owned());
            }
            walker.statement(root);
        }
    }
    // Bash removes a backslash-newline before it splits words (`r\<newline>m` runs `rm`),
    // which the grammar does not always do: the joined line's commands are shown too.
    if line.contains("\\\n") {
        let joined = line.replace("\\\n", "");
        let inner = split(&joined, depth + 1);
        walker.absorb(inner);
    }
    walker.split
}

/// What one walk has found so far.
pub(super) struct Walker<'a> {
    pub(super) source: &'a [u8],
    pub(super) depth: usize,
    /// How many nodes deep the walk is now.
    nesting: usize,
    pub(super) split: Split,
}

impl<'a> Walker<'a> {
    fn new(source: &'a [u8], depth: usize) -> Self {
        Self {
            source,
            depth,
            nesting: 0,
            split: Split::default(),
        }
    }

    /// Runs `step` one level deeper, unless the walk is already too deep (then notes it and
    /// gives `fallback`).
    pub(super) fn deeper<T>(&mut self, fallback: T, step: impl FnOnce(&mut Self) -> T) -> T {
        if self.nesting >= MAX_NESTING {
            self.unprovable(Unprovable::TooDeep);
            self.unresolved("a command nested too deep to follow".to_owned());
            return fallback;
        }
        self.nesting += 1;
        let result = step(self);
        self.nesting -= 1;
        result
    }

    /// Notes a reason, once.
    pub(super) fn unprovable(&mut self, reason: Unprovable) {
        if !self.split.unprovable.contains(&reason) {
            self.split.unprovable.push(reason);
        }
    }

    /// The source text of a node.
    pub(super) fn text(&self, node: Node<'_>) -> String {
        node.utf8_text(self.source).unwrap_or_default().to_owned()
    }

    /// Notes a command whose name is known only when the line runs.
    pub(super) fn unresolved(&mut self, text: String) {
        /// Enough to say what happened; keeps a pathological line's list short.
        const MAX_UNRESOLVED: usize = 16;
        /// A shown text's length: an 8 MB line is named, not copied.
        const MAX_SHOWN: usize = 200;
        let text = match text.char_indices().nth(MAX_SHOWN) {
            Some((end, _)) => format!("{}...", text.get(..end).unwrap_or_default()),
            None => text,
        };
        if self.split.unresolved.len() < MAX_UNRESOLVED && !self.split.unresolved.contains(&text) {
            self.split.unresolved.push(text);
        }
    }

    /// Takes in what a nested split found: its commands are hidden ones here.
    pub(super) fn absorb(&mut self, inner: Split) {
        self.split.hidden.extend(inner.commands);
        self.split.hidden.extend(inner.hidden);
        for text in inner.unresolved {
            self.unresolved(text);
        }
        self.split.writes.extend(inner.writes);
        for reason in inner.unprovable {
            self.unprovable(reason);
        }
    }

    /// Records a command the line runs (`visible`) or one found where it cannot be proven.
    pub(super) fn record(&mut self, words: Vec<String>, visible: bool) {
        let command = SimpleCommand::new(words);
        if visible {
            self.split.commands.push(command);
        } else {
            self.split.hidden.push(command);
        }
    }

    fn statement(&mut self, node: Node<'_>) {
        self.deeper((), |walker| walker.statement_here(node));
    }

    fn statement_here(&mut self, node: Node<'_>) {
        match node.kind() {
            "program" | "list" | "pipeline" | "subshell" | "compound_statement"
            | "negated_command" => self.children_as_statements(node),
            "redirected_statement" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if is_redirect(child.kind()) {
                        self.redirect(child);
                    } else {
                        self.statement(child);
                    }
                }
            }
            "command" => self.command(node),
            "comment" => {}
            "variable_assignment" | "declaration_command" | "unset_command" => {
                let text = self.text(node);
                self.unprovable(Unprovable::Assignment(text));
                self.scan(node);
            }
            "ERROR" => {
                self.unprovable(Unprovable::Unparsable);
                self.children_as_statements(node);
            }
            other => {
                self.unprovable(Unprovable::Syntax(other.to_owned()));
                self.children_as_statements(node);
            }
        }
    }

    /// Walks each named child: statements as statements, anything else for substitutions.
    fn children_as_statements(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if is_statement(child.kind()) {
                self.statement(child);
            } else if is_redirect(child.kind()) {
                self.redirect(child);
            } else {
                self.scan(child);
            }
        }
    }

    /// Looks through a node for the substitutions inside it (a heredoc body, an assignment's
    /// value, a redirection's target).
    pub(super) fn scan(&mut self, node: Node<'_>) {
        self.deeper((), |walker| walker.scan_here(node));
    }

    fn scan_here(&mut self, node: Node<'_>) {
        match node.kind() {
            "command_substitution" | "process_substitution" => self.substitution(node),
            "ERROR" => {
                self.unprovable(Unprovable::Unparsable);
                self.children_as_statements(node);
            }
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.scan(child);
                }
            }
        }
    }

    /// `$(...)`, backticks, `<(...)`, `>(...)`: never provable; their commands are hidden ones.
    pub(super) fn substitution(&mut self, node: Node<'_>) {
        self.unprovable(if node.kind() == "process_substitution" {
            Unprovable::ProcessSubstitution
        } else {
            Unprovable::CommandSubstitution
        });
        let mut inner = Walker::new(self.source, self.depth);
        inner.nesting = self.nesting;
        inner.children_as_statements(node);
        self.absorb(inner.split);
    }

    /// A redirection: reading, `/dev/null` and descriptor copies are harmless; any other
    /// write is not provable.
    pub(super) fn redirect(&mut self, node: Node<'_>) {
        if node.kind() != "file_redirect" {
            // Heredocs and here-strings feed input; only what they expand matters (and a
            // redirection written after the heredoc's start).
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if child.kind() == "file_redirect" {
                    self.redirect(child);
                } else {
                    self.scan(child);
                }
            }
            return;
        }
        let mut cursor = node.walk();
        let operator = node
            .children(&mut cursor)
            .find(|child| !child.is_named())
            .map(|child| child.kind().to_owned())
            .unwrap_or_default();
        let destination = node.child_by_field_name("destination");
        if let Some(destination) = destination {
            self.scan(destination);
        }
        let writes = matches!(
            operator.as_str(),
            ">" | ">>" | "&>" | "&>>" | ">|" | "<>" | ">&" | ">&-"
        );
        if !writes {
            return;
        }
        let target = destination.map(|node| self.text(node)).unwrap_or_default();
        let duplicates = operator.starts_with(">&")
            && (target == "-" || target.bytes().all(|byte| byte.is_ascii_digit()));
        if duplicates || target == "/dev/null" {
            return;
        }
        let text = self.text(node);
        self.unprovable(Unprovable::WritingRedirect(text));
        let target = target
            .trim_matches(|quote| quote == '"' || quote == '\'')
            .to_owned();
        if !self.split.writes.contains(&target) {
            self.split.writes.push(target);
        }
    }
}

/// Node kinds that are statements (or hold statements).
fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "program"
            | "list"
            | "pipeline"
            | "subshell"
            | "compound_statement"
            | "negated_command"
            | "redirected_statement"
            | "command"
            | "variable_assignment"
            | "declaration_command"
            | "unset_command"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item"
            | "do_group"
            | "function_definition"
            | "test_command"
            | "ERROR"
    )
}

/// Node kinds that redirect.
fn is_redirect(kind: &str) -> bool {
    matches!(
        kind,
        "file_redirect" | "heredoc_redirect" | "herestring_redirect"
    )
}
