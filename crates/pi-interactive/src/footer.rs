//! The footer under the editor, as Pi's: the working directory and the session's name on
//! one line; tokens in and out, the cost, how full the context window is, and the model
//! with its thinking level on the next.

use pi_coding_agent::visible;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// What the footer shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FooterInfo {
    /// The working directory, as shown (`~` for the home directory).
    pub cwd: String,
    /// The session's name, if it has one.
    pub session_name: Option<String>,
    /// `provider/model`.
    pub model: String,
    /// The thinking level (`off` for a model that does not reason).
    pub thinking: String,
    /// Input tokens of the session's answers.
    pub input_tokens: u64,
    /// Output tokens of the session's answers.
    pub output_tokens: u64,
    /// What the answers cost, in dollars.
    pub cost: f64,
    /// The tokens of the context the last answer was given (its whole usage).
    pub context_tokens: u64,
    /// The model's context window.
    pub context_window: u64,
    /// When Ctrl+P cycles through a scope (`--models`, `enabledModels`, `/scoped-models`):
    /// the current model's place in it (`None`: outside it) and how many it holds.
    pub scope: Option<(Option<usize>, usize)>,
}

impl FooterInfo {
    /// How full the context window is, in percent.
    pub fn context_percent(&self) -> f64 {
        if self.context_window == 0 {
            return 0.0;
        }
        // Display only: a token count fits an f64's mantissa.
        #[allow(clippy::cast_precision_loss)]
        let percent = self.context_tokens as f64 * 100.0 / self.context_window as f64;
        percent
    }

    /// The footer's two lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let dim = Style::default().add_modifier(Modifier::DIM);
        let mut first = visible(&self.cwd).into_owned();
        if let Some(name) = &self.session_name {
            first.push_str(" • ");
            first.push_str(&visible(name));
        }
        let usage = format!(
            "↑{} ↓{} ${:.3} {:.1}%/{}",
            compact(self.input_tokens),
            compact(self.output_tokens),
            self.cost,
            self.context_percent(),
            compact(self.context_window)
        );
        let context_style = match self.context_percent() {
            percent if percent > 90.0 => Style::default().fg(Color::Red),
            percent if percent > 70.0 => Style::default().fg(Color::Yellow),
            _ => dim,
        };
        let mut model = format!("{} • {}", visible(&self.model), visible(&self.thinking));
        if let Some((place, count)) = self.scope {
            let place = place.map_or_else(|| "-".to_owned(), |place| (place + 1).to_string());
            model.push_str(&format!(" • scoped {place}/{count}"));
        }
        vec![
            Line::from(Span::styled(first, dim)),
            Line::from(vec![
                Span::styled(usage, context_style),
                Span::styled("  ", dim),
                Span::styled(model, dim),
            ]),
        ]
    }
}

/// `1234` as `1.2k`, `2500000` as `2.5M`.
pub(crate) fn compact(count: u64) -> String {
    // Display only.
    #[allow(clippy::cast_precision_loss)]
    let value = count as f64;
    if count >= 1_000_000 {
        format!("{:.1}M", value / 1_000_000.0)
    } else if count >= 1_000 {
        format!("{:.1}k", value / 1_000.0)
    } else {
        count.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_screen::render;

    #[test]
    fn the_footer_shows_model_tokens_cost_context_and_name() {
        let info = FooterInfo {
            cwd: "~/work/app".to_owned(),
            session_name: Some("refactor".to_owned()),
            model: "local/qwen".to_owned(),
            thinking: "medium".to_owned(),
            input_tokens: 12_345,
            output_tokens: 678,
            cost: 0.0123,
            context_tokens: 32_000,
            context_window: 128_000,
            scope: None,
        };
        assert_eq!(
            render(info.lines(), 60, 2),
            "~/work/app • refactor\n↑12.3k ↓678 $0.012 25.0%/128.0k  local/qwen • medium"
        );
        let scoped = FooterInfo {
            scope: Some((Some(1), 3)),
            ..info.clone()
        };
        assert!(
            render(scoped.lines(), 80, 2).ends_with("local/qwen • medium • scoped 2/3"),
            "{}",
            render(scoped.lines(), 80, 2)
        );
        let outside = FooterInfo {
            scope: Some((None, 2)),
            ..info
        };
        assert!(render(outside.lines(), 80, 2).ends_with("• scoped -/2"));
    }

    #[test]
    fn a_full_context_is_red() {
        let info = FooterInfo {
            context_tokens: 95,
            context_window: 100,
            ..FooterInfo::default()
        };
        let lines = info.lines();
        assert_eq!(lines[1].spans[0].style.fg, Some(Color::Red));
        assert_eq!(compact(2_500_000), "2.5M");
    }
}
