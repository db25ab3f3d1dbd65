//! The first message of a run from the command line, as Pi builds it: piped input first, then
//! the `@file` arguments (a text file as `<file name="...">` with its contents, an image
//! attached with `read`'s limits and resizing), then the first message argument, joined into
//! one user message. The other message arguments are sent after it, one prompt each.

use std::path::Path;

use pi_ai::{UserContent, UserMessage};
use pi_tool::Content;

use crate::runtime_error::RuntimeError;

/// What the `@file` arguments add to the first message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileArguments {
    /// The files' text: each text file as `<file name="PATH">\nCONTENTS\n</file>\n`, each
    /// image as a `<file name="PATH">` naming it (with the resizing notes, if any).
    pub text: String,
    /// The images, attached to the first message.
    pub images: Vec<Content>,
}

impl FileArguments {
    /// Reads `files` (without their `@`; `~` is the home directory, a relative path is taken
    /// from `cwd`). Empty files are skipped, as in Pi; a missing or unreadable file (or a
    /// text file that is not UTF-8) ends the command, naming it.
    pub fn read(files: &[String], cwd: &Path) -> Result<Self, RuntimeError> {
        let home = std::env::home_dir();
        let mut arguments = Self::default();
        for file in files {
            let path = pi_tool::path::resolve_argument(cwd, home.as_deref(), file);
            let path = std::path::absolute(&path).unwrap_or(path);
            let bytes = std::fs::read(&path).map_err(|source| unreadable(&path, source))?;
            if bytes.is_empty() {
                continue;
            }
            arguments.add(&path, bytes)?;
        }
        Ok(arguments)
    }

    fn add(&mut self, path: &Path, bytes: Vec<u8>) -> Result<(), RuntimeError> {
        let name = path.display();
        let Some(attached) = pi_coding_tools::image_attachment(&bytes) else {
            let text = String::from_utf8(bytes).map_err(|error| {
                unreadable(
                    path,
                    std::io::Error::new(std::io::ErrorKind::InvalidData, error.utf8_error()),
                )
            })?;
            self.text
                .push_str(&format!("<file name=\"{name}\">\n{text}\n</file>\n"));
            return Ok(());
        };
        // `read`'s first line names the file's type; the lines after it, if any, say how the
        // image was changed (resized, converted) or why it is not attached.
        let mut hints = Vec::new();
        for block in attached.content {
            match block {
                Content::Image { .. } => self.images.push(block),
                Content::Text { text } => hints.extend(text.lines().skip(1).map(str::to_owned)),
            }
        }
        self.text.push_str(&format!(
            "<file name=\"{name}\">{}</file>\n",
            hints.join("\n")
        ));
        Ok(())
    }
}

fn unreadable(path: &Path, source: std::io::Error) -> RuntimeError {
    RuntimeError::Io {
        what: format!("could not read the file {}", path.display()),
        source,
    }
}

/// The prompts of a command line: the first one (piped input, then the files' text, then the
/// first message; the files' images attached) and the rest of the messages, one prompt each.
/// Empty when there is nothing to send.
pub fn command_line_prompts(
    piped: Option<String>,
    files: FileArguments,
    messages: &[String],
) -> Vec<UserMessage> {
    let mut first = String::new();
    if let Some(piped) = piped {
        first.push_str(&piped);
    }
    first.push_str(&files.text);
    let mut rest = messages.iter();
    if let Some(message) = rest.next() {
        first.push_str(message);
    }
    let mut prompts = Vec::new();
    if !first.is_empty() || !files.images.is_empty() {
        let mut blocks = vec![pi_tool::text(first)];
        blocks.extend(files.images);
        prompts.push(user_blocks(blocks));
    }
    prompts.extend(rest.map(|message| user_blocks(vec![pi_tool::text(message.clone())])));
    prompts
}

/// A user message of content blocks, as Pi's command line writes them (a text block, then any
/// images), not a bare string.
fn user_blocks(blocks: Vec<Content>) -> UserMessage {
    let mut message = UserMessage::text(String::new());
    message.content = UserContent::Blocks(blocks);
    message
}

/// The `@file` arguments among `arguments` (without their `@`), and the messages.
pub fn split_file_arguments(arguments: &[String]) -> (Vec<String>, Vec<String>) {
    let mut files = Vec::new();
    let mut messages = Vec::new();
    for argument in arguments {
        match argument.strip_prefix('@') {
            Some(file) if !file.is_empty() => files.push(file.to_owned()),
            _ => messages.push(argument.clone()),
        }
    }
    (files, messages)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn piped_input_files_and_the_first_message_make_one_prompt() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.md"), "remember the milk").unwrap();
        std::fs::write(dir.path().join("empty.txt"), "").unwrap();
        let arguments: Vec<String> = ["@notes.md", "@empty.txt", "summarise", "then translate"]
            .map(str::to_owned)
            .to_vec();
        let (files, messages) = split_file_arguments(&arguments);
        assert_eq!(files, ["notes.md", "empty.txt"]);
        let files = FileArguments::read(&files, dir.path()).unwrap();
        let prompts = command_line_prompts(Some("piped\n".into()), files, &messages);
        assert_eq!(prompts.len(), 2);
        let UserContent::Blocks(blocks) = &prompts[0].content else {
            panic!("Pi's blocks");
        };
        let [Content::Text { text: first }] = blocks.as_slice() else {
            panic!("one text block: {blocks:?}");
        };
        let path = dir.path().join("notes.md");
        assert_eq!(
            *first,
            format!(
                "piped\n<file name=\"{}\">\nremember the milk\n</file>\nsummarise",
                path.display()
            )
        );
        assert!(
            matches!(&prompts[1].content, UserContent::Blocks(blocks) if blocks == &[pi_tool::text("then translate")])
        );
    }

    #[test]
    fn an_image_is_attached_and_named() {
        let dir = tempfile::tempdir().unwrap();
        // A 1x1 PNG.
        let png: [u8; 67] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
            0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
            0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78,
            0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00,
            0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ];
        std::fs::write(dir.path().join("dot.png"), png).unwrap();
        let files = FileArguments::read(&["dot.png".to_owned()], dir.path()).unwrap();
        assert_eq!(files.images.len(), 1, "{files:?}");
        let prompts = command_line_prompts(None, files, &["what is it?".to_owned()]);
        let UserContent::Blocks(blocks) = &prompts[0].content else {
            panic!("an image makes blocks");
        };
        assert!(matches!(&blocks[1], Content::Image { mime_type, .. } if mime_type == "image/png"));
    }

    #[test]
    fn a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let error = FileArguments::read(&["gone.md".to_owned()], dir.path()).unwrap_err();
        assert!(error.to_string().contains("gone.md"), "{error}");
    }
}
