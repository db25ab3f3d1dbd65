//! `/settings`: the settings of Pi's list this mode has (thinking level, automatic compaction,
//! the steering and follow-up modes), each changed on Enter for this session and saved to
//! the person's settings file (`pi_approval::settings::save_value`: atomic, a file it cannot
//! read is left as it was and the change holds for this session only).

use super::*;
use crate::picker::Setting;

/// Pi's words for a queue mode.
fn queue_mode(one_at_a_time: bool) -> &'static str {
    if one_at_a_time {
        "one-at-a-time"
    } else {
        "all"
    }
}

impl App {
    /// Opens the settings list with item `selected` selected.
    pub(super) fn open_settings(&mut self, selected: usize) {
        let Ok(session) = self.host.session() else {
            return;
        };
        let items = vec![
            (
                format!("Thinking level      {}", self.host.model().thinking_level),
                Pick::Setting(Setting::Thinking),
            ),
            (
                format!(
                    "Auto-compaction     {}",
                    if session.auto_compaction() {
                        "on"
                    } else {
                        "off"
                    }
                ),
                Pick::Setting(Setting::AutoCompaction),
            ),
            (
                format!(
                    "Steering mode       {}",
                    queue_mode(session.steering().is_one_at_a_time())
                ),
                Pick::Setting(Setting::SteeringMode),
            ),
            (
                format!(
                    "Follow-up mode      {}",
                    queue_mode(session.follow_ups().is_one_at_a_time())
                ),
                Pick::Setting(Setting::FollowUpMode),
            ),
        ];
        self.picker = Some(Picker::new("Settings", items).selecting(selected));
    }

    /// Changes `setting` to its next value, saves it, and shows the list again.
    pub(super) async fn change_setting(&mut self, setting: Setting) {
        let saved = match setting {
            Setting::Thinking => match self.host.cycle_thinking_level().await {
                Ok(changed) => {
                    self.after_change(
                        Ok(changed.map(|changed| changed.warnings).unwrap_or_default()),
                        "",
                    );
                    let level = self.host.model().thinking_level.to_string();
                    Some((vec!["defaultThinkingLevel"], serde_json::Value::from(level)))
                }
                Err(error) => {
                    self.pending.push(transcript::error(&error.to_string()));
                    None
                }
            },
            Setting::AutoCompaction => {
                let enabled = !self
                    .host
                    .session()
                    .is_ok_and(|session| session.auto_compaction());
                self.host.set_auto_compaction(enabled);
                Some((
                    vec!["compaction", "enabled"],
                    serde_json::Value::Bool(enabled),
                ))
            }
            Setting::SteeringMode | Setting::FollowUpMode => {
                let Ok(session) = self.host.session() else {
                    return;
                };
                let (queue, key) = if setting == Setting::SteeringMode {
                    (session.steering(), "steeringMode")
                } else {
                    (session.follow_ups(), "followUpMode")
                };
                let one = !queue.is_one_at_a_time();
                queue.set_one_at_a_time(one);
                Some((vec![key], serde_json::Value::from(queue_mode(one))))
            }
        };
        if let Some((keys, value)) = saved {
            self.save_setting(&keys, value);
        }
        let index = match setting {
            Setting::Thinking => 0,
            Setting::AutoCompaction => 1,
            Setting::SteeringMode => 2,
            Setting::FollowUpMode => 3,
        };
        self.open_settings(index);
    }

    /// Writes `value` at `keys` in the person's settings file; a failure is said, and the
    /// change holds for this session only.
    pub(super) fn save_setting(&mut self, keys: &[&str], value: serde_json::Value) {
        let shown = format!("{} = {value}", keys.join("."));
        match &self.user_settings {
            Some(path) => match pi_approval::settings::save_value(path, keys, value) {
                Ok(()) => self.set_status(transcript::notice(&format!(
                    "Saved {shown} to {}",
                    path.display()
                ))),
                Err(error) => self.pending.push(transcript::error(&format!(
                    "Could not save {shown} ({}); it holds for this session only.",
                    pi_tool::error_text(&error)
                ))),
            },
            None => self.pending.push(transcript::error(
                "No settings directory (set PI_CODING_AGENT_DIR or HOME); the change holds for this session only.",
            )),
        }
    }
}
