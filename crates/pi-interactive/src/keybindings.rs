//! Which key does what: Pi's default bindings under Pi's action ids, overridden by the
//! person's `keybindings.json` in the agent directory (`~/.pi/agent/keybindings.json`): each id
//! names one key or a list of keys (`"ctrl+k"`, `["up", "alt+k"]`), and a listed id loses its
//! default keys. A file that cannot be read, an unknown id or a key that cannot be read is a
//! warning shown at start; the rest of the file still applies.
//!
//! Only the actions this interactive mode has are listed; ids of Pi's other actions are
//! accepted and ignored.

use std::collections::HashMap;
use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The file's name in the agent directory.
pub(crate) const FILE_NAME: &str = "keybindings.json";

/// Something a key can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Action {
    /// Abort the run.
    Interrupt,
    /// Clear the input (twice: exit).
    Clear,
    /// Exit, on an empty input.
    Exit,
    /// Edit the message in `$VISUAL` or `$EDITOR`.
    ExternalEditor,
    /// Choose the model.
    ModelSelect,
    /// The next model.
    ModelCycleForward,
    /// The previous model.
    ModelCycleBackward,
    /// The next thinking level.
    ThinkingCycle,
    /// Hide or show thinking.
    ThinkingToggle,
    /// Print the last tool result whole.
    ToolsExpand,
    /// Queue a follow-up (a new line when idle).
    FollowUp,
    /// Take the queued messages back.
    Dequeue,
    /// A new line in the input.
    NewLine,
    /// Send the input.
    Submit,
    /// Complete.
    Tab,
    /// Cursor up (history at the top).
    CursorUp,
    /// Cursor down (history at the bottom).
    CursorDown,
    /// Cursor left.
    CursorLeft,
    /// Cursor right.
    CursorRight,
    /// To the start of the line.
    LineStart,
    /// To the end of the line.
    LineEnd,
    /// Delete the character before the cursor.
    DeleteCharBackward,
    /// Delete the character under the cursor.
    DeleteCharForward,
    /// Delete the word before the cursor.
    DeleteWordBackward,
    /// Delete the whole input line.
    DeleteToLineStart,
    /// `/new`.
    SessionNew,
    /// `/tree`.
    SessionTree,
    /// `/fork`.
    SessionFork,
    /// `/resume`.
    SessionResume,
    /// In `/resume`: rename the selected session.
    SessionRename,
    /// In `/resume`: delete the selected session (again to confirm).
    SessionDelete,
    /// In `/resume`: named sessions only, or all.
    SessionToggleNamedFilter,
    /// In `/tree`: set or clear the selected entry's label.
    TreeEditLabel,
    /// In `/tree`: the default filter.
    TreeFilterDefault,
    /// In `/tree`: tool results hidden, or not.
    TreeFilterNoTools,
    /// In `/tree`: user messages only, or not.
    TreeFilterUserOnly,
    /// In `/tree`: labelled entries only, or not.
    TreeFilterLabeledOnly,
    /// In `/tree`: every entry, or not.
    TreeFilterAll,
    /// In `/tree`: the next filter.
    TreeFilterCycleForward,
    /// In `/tree`: the filter before.
    TreeFilterCycleBackward,
}

/// Pi's id of each action and its default keys, in the order a key shared by two actions is
/// tried (`ctrl+d` exits on an empty input, else deletes forward).
const DEFAULTS: &[(&str, Action, &[&str])] = &[
    ("app.interrupt", Action::Interrupt, &["escape"]),
    ("app.clear", Action::Clear, &["ctrl+c"]),
    ("app.exit", Action::Exit, &["ctrl+d"]),
    ("app.editor.external", Action::ExternalEditor, &["ctrl+g"]),
    ("app.model.select", Action::ModelSelect, &["ctrl+l"]),
    (
        "app.model.cycleForward",
        Action::ModelCycleForward,
        &["ctrl+p"],
    ),
    (
        "app.model.cycleBackward",
        Action::ModelCycleBackward,
        &["shift+ctrl+p"],
    ),
    ("app.thinking.cycle", Action::ThinkingCycle, &["shift+tab"]),
    ("app.thinking.toggle", Action::ThinkingToggle, &["ctrl+t"]),
    ("app.tools.expand", Action::ToolsExpand, &["ctrl+o"]),
    ("app.message.followUp", Action::FollowUp, &["alt+enter"]),
    ("app.message.dequeue", Action::Dequeue, &["alt+up"]),
    ("app.session.new", Action::SessionNew, &[]),
    ("app.session.tree", Action::SessionTree, &[]),
    ("app.session.fork", Action::SessionFork, &[]),
    ("app.session.resume", Action::SessionResume, &[]),
    ("app.session.rename", Action::SessionRename, &["ctrl+r"]),
    ("app.session.delete", Action::SessionDelete, &["ctrl+d"]),
    (
        "app.session.toggleNamedFilter",
        Action::SessionToggleNamedFilter,
        &["ctrl+n"],
    ),
    ("app.tree.editLabel", Action::TreeEditLabel, &["shift+l"]),
    (
        "app.tree.filter.default",
        Action::TreeFilterDefault,
        &["ctrl+d"],
    ),
    (
        "app.tree.filter.noTools",
        Action::TreeFilterNoTools,
        &["ctrl+t"],
    ),
    (
        "app.tree.filter.userOnly",
        Action::TreeFilterUserOnly,
        &["ctrl+u"],
    ),
    (
        "app.tree.filter.labeledOnly",
        Action::TreeFilterLabeledOnly,
        &["ctrl+l"],
    ),
    ("app.tree.filter.all", Action::TreeFilterAll, &["ctrl+a"]),
    (
        "app.tree.filter.cycleForward",
        Action::TreeFilterCycleForward,
        &["ctrl+o"],
    ),
    (
        "app.tree.filter.cycleBackward",
        Action::TreeFilterCycleBackward,
        &["shift+ctrl+o"],
    ),
    (
        "tui.input.newLine",
        Action::NewLine,
        &["shift+enter", "ctrl+j", "ctrl+enter"],
    ),
    ("tui.input.submit", Action::Submit, &["enter"]),
    ("tui.input.tab", Action::Tab, &["tab"]),
    ("tui.editor.cursorUp", Action::CursorUp, &["up"]),
    ("tui.editor.cursorDown", Action::CursorDown, &["down"]),
    (
        "tui.editor.cursorLeft",
        Action::CursorLeft,
        &["left", "ctrl+b"],
    ),
    (
        "tui.editor.cursorRight",
        Action::CursorRight,
        &["right", "ctrl+f"],
    ),
    (
        "tui.editor.cursorLineStart",
        Action::LineStart,
        &["home", "ctrl+a"],
    ),
    (
        "tui.editor.cursorLineEnd",
        Action::LineEnd,
        &["end", "ctrl+e"],
    ),
    (
        "tui.editor.deleteCharBackward",
        Action::DeleteCharBackward,
        &["backspace"],
    ),
    (
        "tui.editor.deleteCharForward",
        Action::DeleteCharForward,
        &["delete", "ctrl+d"],
    ),
    (
        "tui.editor.deleteWordBackward",
        Action::DeleteWordBackward,
        &["ctrl+w", "alt+backspace"],
    ),
    (
        "tui.editor.deleteToLineStart",
        Action::DeleteToLineStart,
        &["ctrl+u"],
    ),
];

/// A key with its modifiers, as a binding names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Chord {
    code: KeyCode,
    modifiers: KeyModifiers,
}

impl Chord {
    /// The chord of a key pressed: a letter typed with Shift is its small letter with Shift,
    /// Shift+Tab is `shift+tab`.
    fn of(key: KeyEvent) -> Self {
        let mut modifiers =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            KeyCode::BackTab => {
                modifiers |= KeyModifiers::SHIFT;
                KeyCode::Tab
            }
            KeyCode::Char(letter) if letter.is_ascii_uppercase() => {
                modifiers |= KeyModifiers::SHIFT;
                KeyCode::Char(letter.to_ascii_lowercase())
            }
            // A symbol carries its own shift (`?`, `@`): not a modifier of it.
            KeyCode::Char(symbol) if !symbol.is_ascii_alphanumeric() => {
                modifiers -= KeyModifiers::SHIFT;
                KeyCode::Char(symbol)
            }
            code => code,
        };
        Self { code, modifiers }
    }

    /// `ctrl+shift+x`, `alt+enter`, `f5`, `pageUp`; `None` when it is not a key.
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase();
        // `ctrl++` names the plus key: the last part is the key, whatever it holds.
        let (mods, key) = match text.strip_suffix("++") {
            Some(mods) => (mods, "+"),
            None => match text.rsplit_once('+') {
                Some((mods, key)) => (mods, key),
                None => ("", text.as_str()),
            },
        };
        let mut modifiers = KeyModifiers::NONE;
        for part in mods.split('+').filter(|part| !part.is_empty()) {
            modifiers |= match part {
                "ctrl" => KeyModifiers::CONTROL,
                "alt" => KeyModifiers::ALT,
                "shift" => KeyModifiers::SHIFT,
                _ => return None,
            };
        }
        let code = match key {
            "escape" | "esc" => KeyCode::Esc,
            "enter" | "return" => KeyCode::Enter,
            "tab" => KeyCode::Tab,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            "delete" => KeyCode::Delete,
            "insert" => KeyCode::Insert,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            function if function.len() > 1 && function.starts_with('f') => {
                let number: u8 = function.get(1..)?.parse().ok()?;
                if !(1..=12).contains(&number) {
                    return None;
                }
                KeyCode::F(number)
            }
            single => {
                let mut chars = single.chars();
                let character = chars.next()?;
                if chars.next().is_some() || character.is_whitespace() {
                    return None;
                }
                KeyCode::Char(character)
            }
        };
        Some(Self::of(crossterm::event::KeyEvent::new(code, modifiers)))
    }
}

/// The bindings in force: for each key, the actions it does, tried in order.
#[derive(Debug, Clone)]
pub(crate) struct KeyBindings {
    keys: HashMap<Chord, Vec<Action>>,
}

impl Default for KeyBindings {
    fn default() -> Self {
        Self::from_overrides(&HashMap::new())
    }
}

impl KeyBindings {
    /// Pi's defaults with the person's file in `agent_dir` over them, and what was wrong with
    /// the file (each a line to show); the defaults alone without a file or a directory.
    pub(crate) fn load(agent_dir: Option<&Path>) -> (Self, Vec<String>) {
        let Some(path) = agent_dir.map(|dir| dir.join(FILE_NAME)) else {
            return (Self::default(), Vec::new());
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return (Self::default(), Vec::new());
            }
            Err(error) => {
                return (
                    Self::default(),
                    vec![format!(
                        "{} could not be read ({error}); the default keys apply",
                        path.display()
                    )],
                );
            }
        };
        Self::parse(&text, &path)
    }

    /// The bindings a file's `text` asks for (the file at `path`, for the warnings).
    fn parse(text: &str, path: &Path) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let object = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(object)) => object,
            Ok(_) => {
                warnings.push(format!(
                    "{} is not a JSON object of action ids; the default keys apply",
                    path.display()
                ));
                return (Self::default(), warnings);
            }
            Err(error) => {
                warnings.push(format!(
                    "{} is not valid JSON ({error}); the default keys apply",
                    path.display()
                ));
                return (Self::default(), warnings);
            }
        };
        let mut overrides = HashMap::new();
        for (id, keys) in object {
            let Some(action) = DEFAULTS
                .iter()
                .find(|(known, _, _)| *known == id)
                .map(|(_, action, _)| *action)
            else {
                if !is_pi_action(&id) {
                    warnings.push(format!("{}: no action is called {id:?}", path.display()));
                }
                continue;
            };
            let names: Vec<&str> = match &keys {
                serde_json::Value::String(key) => vec![key.as_str()],
                serde_json::Value::Array(keys) => {
                    keys.iter().filter_map(serde_json::Value::as_str).collect()
                }
                _ => {
                    warnings.push(format!(
                        "{}: {id} should name a key or a list of keys",
                        path.display()
                    ));
                    continue;
                }
            };
            let mut chords = Vec::new();
            for name in names {
                match Chord::parse(name) {
                    Some(chord) => chords.push(chord),
                    None => {
                        warnings.push(format!("{}: {id}: {name:?} is not a key", path.display()))
                    }
                }
            }
            overrides.insert(action, chords);
        }
        (Self::from_overrides(&overrides), warnings)
    }

    /// The defaults with each action in `overrides` bound to its keys there instead.
    fn from_overrides(overrides: &HashMap<Action, Vec<Chord>>) -> Self {
        let mut keys: HashMap<Chord, Vec<Action>> = HashMap::new();
        for (_, action, defaults) in DEFAULTS {
            let chords = match overrides.get(action) {
                Some(chords) => chords.clone(),
                None => defaults
                    .iter()
                    .filter_map(|name| Chord::parse(name))
                    .collect(),
            };
            for chord in chords {
                let actions = keys.entry(chord).or_default();
                if !actions.contains(action) {
                    actions.push(*action);
                }
            }
        }
        Self { keys }
    }

    /// What `key` does, in the order to try; empty when it is bound to nothing.
    pub(crate) fn actions(&self, key: KeyEvent) -> &[Action] {
        self.keys.get(&Chord::of(key)).map_or(&[], Vec::as_slice)
    }

    /// `/hotkeys`: each action with a key, its keys and what it does, one line each.
    pub(crate) fn key_list(&self) -> Vec<String> {
        DEFAULTS
            .iter()
            .filter_map(|(_, action, _)| {
                let keys = self.keys_of(*action);
                (!keys.is_empty())
                    .then(|| format!("{:<24} {}", keys.join(", "), description(*action)))
            })
            .collect()
    }

    /// The keys bound to `action`, as a binding names them (`ctrl+p`), for the key list.
    fn keys_of(&self, action: Action) -> Vec<String> {
        let mut names: Vec<String> = self
            .keys
            .iter()
            .filter(|(_, actions)| actions.contains(&action))
            .map(|(chord, _)| chord_name(*chord))
            .collect();
        names.sort();
        names
    }
}

/// What `action` does, for the key list.
fn description(action: Action) -> &'static str {
    match action {
        Action::Interrupt => "abort the run (or refuse the call asked about)",
        Action::Clear => "clear the input; twice in a row: exit",
        Action::Exit => "exit, when the input is empty",
        Action::ExternalEditor => "edit the message in $VISUAL or $EDITOR",
        Action::ModelSelect => "choose the model",
        Action::ModelCycleForward => "next model",
        Action::ModelCycleBackward => "previous model",
        Action::ThinkingCycle => "next thinking level",
        Action::ThinkingToggle => "hide or show thinking (from now on)",
        Action::ToolsExpand => "show the last tool result whole",
        Action::FollowUp => "while the agent works: queue a follow-up; else a new line",
        Action::Dequeue => "the queued messages back into the editor",
        Action::NewLine => "new line",
        Action::Submit => "send (while the agent works: queue a steering message)",
        Action::Tab => "complete a /command or an @file",
        Action::CursorUp => "up; at the top of the text, the history",
        Action::CursorDown => "down; at the bottom of the text, the history",
        Action::CursorLeft => "left",
        Action::CursorRight => "right",
        Action::LineStart => "to the start of the line",
        Action::LineEnd => "to the end of the line",
        Action::DeleteCharBackward => "delete the character before the cursor",
        Action::DeleteCharForward => "delete the character under the cursor",
        Action::DeleteWordBackward => "delete the word before the cursor",
        Action::DeleteToLineStart => "clear the input",
        Action::SessionNew => "start a new session (/new)",
        Action::SessionTree => "browse the session tree (/tree)",
        Action::SessionFork => "fork from an earlier message (/fork)",
        Action::SessionResume => "resume another session (/resume)",
        Action::SessionRename => "in the session list: rename the selected session",
        Action::SessionDelete => "in the session list: delete the selected session (twice)",
        Action::SessionToggleNamedFilter => "in the session list: named sessions only, or all",
        Action::TreeEditLabel => "in the tree view: set or clear the selected entry's label",
        Action::TreeFilterDefault => "in the tree view: the default view",
        Action::TreeFilterNoTools => "in the tree view: hide tool results (again: default)",
        Action::TreeFilterUserOnly => "in the tree view: user messages only (again: default)",
        Action::TreeFilterLabeledOnly => "in the tree view: labelled entries only (again: default)",
        Action::TreeFilterAll => "in the tree view: every entry (again: default)",
        Action::TreeFilterCycleForward => "in the tree view: the next filter",
        Action::TreeFilterCycleBackward => "in the tree view: the filter before",
    }
}

/// Whether `id` is one of Pi's action ids this mode does not have (accepted, ignored).
fn is_pi_action(id: &str) -> bool {
    id.starts_with("app.") || id.starts_with("tui.")
}

/// A chord as a binding names it.
fn chord_name(chord: Chord) -> String {
    let mut name = String::new();
    for (modifier, word) in [
        (KeyModifiers::CONTROL, "ctrl+"),
        (KeyModifiers::ALT, "alt+"),
        (KeyModifiers::SHIFT, "shift+"),
    ] {
        if chord.modifiers.contains(modifier) {
            name.push_str(word);
        }
    }
    match chord.code {
        KeyCode::Esc => name.push_str("escape"),
        KeyCode::Enter => name.push_str("enter"),
        KeyCode::Tab => name.push_str("tab"),
        KeyCode::Backspace => name.push_str("backspace"),
        KeyCode::Delete => name.push_str("delete"),
        KeyCode::Up => name.push_str("up"),
        KeyCode::Down => name.push_str("down"),
        KeyCode::Left => name.push_str("left"),
        KeyCode::Right => name.push_str("right"),
        KeyCode::Home => name.push_str("home"),
        KeyCode::End => name.push_str("end"),
        KeyCode::PageUp => name.push_str("pageUp"),
        KeyCode::PageDown => name.push_str("pageDown"),
        KeyCode::Char(' ') => name.push_str("space"),
        KeyCode::Char(character) => name.push(character),
        KeyCode::F(number) => name.push_str(&format!("f{number}")),
        other => name.push_str(&format!("{other:?}")),
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn pi_defaults() {
        let bindings = KeyBindings::default();
        assert_eq!(
            bindings.actions(key(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            [
                Action::Exit,
                Action::SessionDelete,
                Action::TreeFilterDefault,
                Action::DeleteCharForward
            ]
        );
        assert_eq!(
            bindings.actions(key(
                KeyCode::Char('P'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            )),
            [Action::ModelCycleBackward]
        );
        assert_eq!(
            bindings.actions(key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            [Action::ThinkingCycle]
        );
        assert_eq!(
            bindings.actions(key(KeyCode::Enter, KeyModifiers::ALT)),
            [Action::FollowUp]
        );
        assert_eq!(
            bindings.actions(key(KeyCode::Enter, KeyModifiers::SHIFT)),
            [Action::NewLine]
        );
        assert!(
            bindings
                .actions(key(KeyCode::Char('x'), KeyModifiers::NONE))
                .is_empty()
        );
        assert_eq!(bindings.keys_of(Action::ModelCycleForward), ["ctrl+p"]);
        let list = bindings.key_list();
        assert!(
            list.contains(&format!("{:<24} next thinking level", "shift+tab")),
            "{list:?}"
        );
        assert!(list.iter().all(|line| !line.contains("/tree")));
    }

    #[test]
    fn the_file_overrides_an_action_s_keys() {
        let (bindings, warnings) = KeyBindings::parse(
            r#"{"app.model.cycleForward": ["ctrl+n", "F5"], "app.session.tree": "ctrl+shift+t",
                "tui.editor.yank": "ctrl+y"}"#,
            Path::new("keybindings.json"),
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(
            bindings
                .actions(key(KeyCode::Char('p'), KeyModifiers::CONTROL))
                .is_empty()
        );
        // Ctrl+N is also the session list's own key (tried there first).
        assert_eq!(
            bindings.actions(key(KeyCode::Char('n'), KeyModifiers::CONTROL)),
            [Action::ModelCycleForward, Action::SessionToggleNamedFilter]
        );
        assert_eq!(
            bindings.actions(key(KeyCode::F(5), KeyModifiers::NONE)),
            [Action::ModelCycleForward]
        );
        // The terminal reports Ctrl+Shift+T as a capital T with both modifiers.
        assert_eq!(
            bindings.actions(key(
                KeyCode::Char('T'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            )),
            [Action::SessionTree]
        );
    }

    #[test]
    fn a_bad_file_warns_and_keeps_what_it_can() {
        let (bindings, warnings) = KeyBindings::parse("{not json", Path::new("k.json"));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("not valid JSON"), "{warnings:?}");
        assert_eq!(
            bindings.actions(key(KeyCode::Esc, KeyModifiers::NONE)),
            [Action::Interrupt]
        );
        let (bindings, warnings) = KeyBindings::parse(
            r#"{"app.nope": "x", "no.such": "x", "app.interrupt": ["ctrl+q", "hyper+x"], "app.clear": 3}"#,
            Path::new("k.json"),
        );
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert_eq!(
            bindings.actions(key(KeyCode::Char('q'), KeyModifiers::CONTROL)),
            [Action::Interrupt]
        );
        assert_eq!(
            bindings.actions(key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            [Action::Clear]
        );
        let (_, warnings) = KeyBindings::parse("[1]", Path::new("k.json"));
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn key_names() {
        for (name, chord) in [
            (
                "ctrl++",
                Chord {
                    code: KeyCode::Char('+'),
                    modifiers: KeyModifiers::CONTROL,
                },
            ),
            (
                "pageUp",
                Chord {
                    code: KeyCode::PageUp,
                    modifiers: KeyModifiers::NONE,
                },
            ),
            (
                "alt+ctrl+x",
                Chord {
                    code: KeyCode::Char('x'),
                    modifiers: KeyModifiers::CONTROL | KeyModifiers::ALT,
                },
            ),
        ] {
            assert_eq!(Chord::parse(name), Some(chord), "{name}");
        }
        for bad in ["", "ctrl+", "f13", "super+x", "two words"] {
            assert_eq!(Chord::parse(bad), None, "{bad}");
        }
    }
}
