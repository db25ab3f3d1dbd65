//! One line for an error and its causes, each said once.
//!
//! Errors differ in style: some put their cause in their own message (`reading x: No such
//! file`) and also return it from `source()`, others leave it to `source()` alone. Walking the
//! chain naively prints the first kind's causes twice; this walk skips a cause whose text the
//! line already ends with.

use std::error::Error;

/// `error` and its causes joined by `": "`, each cause's text once.
///
/// ```
/// use pi_tool::error_text;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("reading settings.json: {source}")]
/// struct Inline { source: std::io::Error }
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("reading settings.json")]
/// struct Chained { source: std::io::Error }
///
/// let cause = || std::io::Error::other("disk on fire");
/// assert_eq!(error_text(&Inline { source: cause() }), "reading settings.json: disk on fire");
/// assert_eq!(error_text(&Chained { source: cause() }), "reading settings.json: disk on fire");
/// ```
pub fn error_text(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(next) = cause {
        let said = next.to_string();
        if !said.is_empty() && !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = next.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{message}")]
    struct Layer {
        message: &'static str,
        #[source]
        source: Option<Box<Layer>>,
    }

    fn layer(message: &'static str, source: Option<Layer>) -> Layer {
        Layer {
            message,
            source: source.map(Box::new),
        }
    }

    #[test]
    fn each_cause_is_said_once_whatever_the_style() {
        let chain = layer(
            "outer: middle",
            Some(layer("middle", Some(layer("root", None)))),
        );
        assert_eq!(error_text(&chain), "outer: middle: root");
        assert_eq!(error_text(&layer("alone", None)), "alone");
        // A cause with no words adds nothing.
        assert_eq!(error_text(&layer("outer", Some(layer("", None)))), "outer");
    }
}
