//! `/scoped-models`: the models with a key, each on or off in the scope Ctrl+P and
//! Shift+Ctrl+P cycle through (every one on when the scope is empty, as Pi shows it); Enter
//! turns the selected one on or off for this session, the last item saves the scope to the
//! person's settings (`enabledModels`; every model on is an empty list).

use super::*;

impl App {
    /// Opens the list with item `selected` selected.
    pub(super) fn open_scope(&mut self, selected: usize) {
        let scope = self.host.scope();
        let current = self.host.model().model.reference();
        let mut items: Vec<(String, Pick)> = self
            .host
            .registry()
            .available()
            .into_iter()
            .map(|model| {
                let mark = if scope.includes(&model.provider, &model.id) {
                    "[x]"
                } else {
                    "[ ]"
                };
                let reference = model.reference();
                let now = if reference == current {
                    " (current)"
                } else {
                    ""
                };
                (
                    format!("{mark} {reference}{now}"),
                    Pick::Scope(model.provider.clone(), model.id.clone()),
                )
            })
            .collect();
        items.push((
            "Save this scope to the settings (enabledModels)".to_owned(),
            Pick::SaveScope,
        ));
        self.picker = Some(Picker::new("Models Ctrl+P cycles through", items).selecting(selected));
    }

    /// Turns `provider`/`id` on or off for this session, and shows the list again there.
    pub(super) fn toggle_scoped(&mut self, provider: &str, id: &str) {
        self.host.toggle_in_scope(provider, id);
        let index = self
            .host
            .registry()
            .available()
            .iter()
            .position(|model| model.provider == provider && model.id == id)
            .unwrap_or(0);
        self.refresh_footer();
        self.open_scope(index);
    }

    /// Saves the scope as the settings' `enabledModels` (an empty list: every model; Pi
    /// and this program read it so, and `null` would break Pi's selector).
    pub(super) fn save_scope(&mut self) {
        let references: Vec<serde_json::Value> = self
            .host
            .scope()
            .entries()
            .iter()
            .map(|entry| serde_json::Value::from(entry.reference()))
            .collect();
        self.save_setting(&["enabledModels"], serde_json::Value::Array(references));
    }
}
