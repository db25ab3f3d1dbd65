//! `--list-models [search]`: the models whose provider has a key, as Pi prints them: sorted by
//! provider then id, in six space-padded columns (`provider`, `model`, `context`, `max-out`,
//! `thinking`, `images`), a search keeping the rows whose `provider id` matches it fuzzily.

use crate::collation;
use crate::fuzzy;
use crate::model::Model;
use crate::model_registry::ModelRegistry;

/// The column titles.
const HEADERS: [&str; 6] = [
    "provider", "model", "context", "max-out", "thinking", "images",
];

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRow {
    /// The provider.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// The context window (`200K`, `1M`).
    pub context: String,
    /// The output limit.
    pub max_out: String,
    /// `yes` when the model reasons.
    pub thinking: String,
    /// `yes` when it accepts images.
    pub images: String,
}

impl ModelRow {
    fn of(model: &Model) -> Self {
        let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_owned();
        Self {
            provider: model.provider.clone(),
            model: model.id.clone(),
            context: token_count(model.context_window),
            max_out: token_count(model.max_tokens),
            thinking: yes_no(model.reasoning),
            images: yes_no(model.accepts_images()),
        }
    }

    fn cells(&self) -> [&str; 6] {
        [
            &self.provider,
            &self.model,
            &self.context,
            &self.max_out,
            &self.thinking,
            &self.images,
        ]
    }
}

/// What `--list-models` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelList {
    /// No provider has a key.
    NoModels,
    /// The search matched nothing.
    NoMatch(String),
    /// The rows, sorted.
    Rows(Vec<ModelRow>),
}

/// The rows of `--list-models [search]`.
pub fn list_models(registry: &ModelRegistry, search: Option<&str>) -> ModelList {
    let available = registry.available();
    if available.is_empty() {
        return ModelList::NoModels;
    }
    let mut models: Vec<&Model> = match search {
        Some(query) => available
            .into_iter()
            .filter(|model| fuzzy::matches(query, &format!("{} {}", model.provider, model.id)))
            .collect(),
        None => available,
    };
    if models.is_empty() {
        return ModelList::NoMatch(search.unwrap_or_default().to_owned());
    }
    models.sort_by(|a, b| {
        collation::compare(&a.provider, &b.provider).then_with(|| collation::compare(&a.id, &b.id))
    });
    ModelList::Rows(models.into_iter().map(ModelRow::of).collect())
}

impl ModelList {
    /// The text Pi prints, every line ending in a newline. `no_models` is the message for an
    /// empty registry (Pi points at `/login` and its docs; a front end says what to set).
    pub fn render(&self, no_models: &str) -> String {
        match self {
            Self::NoModels => format!("{no_models}\n"),
            Self::NoMatch(search) => format!("No models matching \"{search}\"\n"),
            Self::Rows(rows) => render_rows(rows),
        }
    }
}

fn render_rows(rows: &[ModelRow]) -> String {
    let mut widths = HEADERS.map(str::len);
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row.cells()) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        format!("{}\n", padded.join("  "))
    };
    let mut text = line(HEADERS);
    for row in rows {
        text.push_str(&line(row.cells()));
    }
    text
}

/// `200000` as `200K`, `1000000` as `1M`, `1048576` as `1.0M`, `131072` as `131.1K` (Pi's
/// rounding to one decimal when not whole).
pub fn token_count(count: u64) -> String {
    // Counts are far below 2^53: the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let scaled = |unit: u64| count as f64 / unit as f64;
    if count >= 1_000_000 {
        with_unit(count, 1_000_000, scaled(1_000_000), "M")
    } else if count >= 1_000 {
        with_unit(count, 1_000, scaled(1_000), "K")
    } else {
        count.to_string()
    }
}

fn with_unit(count: u64, unit: u64, scaled: f64, suffix: &str) -> String {
    if count.is_multiple_of(unit) {
        format!("{}{suffix}", count / unit)
    } else {
        format!("{scaled:.1}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_as_pi_prints_them() {
        assert_eq!(token_count(200_000), "200K");
        assert_eq!(token_count(1_000_000), "1M");
        assert_eq!(token_count(1_048_576), "1.0M");
        assert_eq!(token_count(131_072), "131.1K");
        assert_eq!(token_count(16_384), "16.4K");
        assert_eq!(token_count(999), "999");
    }
}
