//! An AWS profile's `credential_process`, followed as the AWS SDKs (and so Pi's Bedrock
//! client) follow it: the command is run through the shell, with this process's environment,
//! and its standard output is a JSON document with `Version: 1`, `AccessKeyId`,
//! `SecretAccessKey`, and optionally `SessionToken` and `Expiration`; credentials already
//! expired are refused. The command is the user's own (from their AWS config file), so it is
//! run as the SDK runs it; docs/security.md says what that means.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aws_smithy_types::date_time::{DateTime, Format};
use serde_json::Value;

use crate::aws_credentials::AwsKeys;

/// How long the command may run. The SDK sets no limit; a command that never ends would hang
/// every request, so it is stopped here with a clear error.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(60);

/// The most of its standard error an error message repeats.
const STDERR_SHOWN: usize = 300;

/// How long before their `Expiration` the keys are fetched again (the SDK's margin).
const REFRESH_MARGIN_SECS: i64 = 5 * 60;

/// A profile's `credential_process` and the keys it last gave: run again once they are
/// about to expire.
#[derive(Clone, PartialEq, Eq)]
pub struct ProcessCredentials {
    /// The profile's name, for messages.
    pub profile: String,
    /// The command, as the config file writes it.
    pub command: String,
    /// The keys it gave.
    pub keys: AwsKeys,
    /// Their `Expiration`, in seconds since the Unix epoch (`None`: they do not expire).
    pub expires: Option<i64>,
}

impl std::fmt::Debug for ProcessCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessCredentials")
            .field("profile", &self.profile)
            .field("keys", &self.keys)
            .field("expires", &self.expires)
            .finish_non_exhaustive()
    }
}

impl ProcessCredentials {
    /// Runs `profile`'s `command` and keeps what it gave.
    pub(crate) fn run(profile: &str, command: &str) -> Result<Self, String> {
        let (keys, expires) = process_credentials(profile, command)?;
        Ok(Self {
            profile: profile.to_owned(),
            command: command.to_owned(),
            keys,
            expires,
        })
    }

    /// The keys, after running the command again when they expire within five minutes.
    pub(crate) fn fresh_keys(&mut self) -> Result<AwsKeys, String> {
        if self
            .expires
            .is_some_and(|expires| now_secs() + REFRESH_MARGIN_SECS >= expires)
        {
            *self = Self::run(&self.profile, &self.command)?;
        }
        Ok(self.keys.clone())
    }
}

/// Runs `profile`'s `command` and reads its credentials and their expiry.
fn process_credentials(profile: &str, command: &str) -> Result<(AwsKeys, Option<i64>), String> {
    let failed = |why: String| format!("the AWS profile {profile}'s credential_process {why}");
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| failed(format!("could not be started: {error}")))?;
    // Read both pipes while the command runs, so a full pipe cannot stall it.
    let stdout = child.stdout.take().map(read_in_background);
    let stderr = child.stderr.take().map(read_in_background);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < PROCESS_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failed(format!(
                    "did not finish within {} s",
                    PROCESS_TIMEOUT.as_secs()
                )));
            }
            Err(error) => return Err(failed(format!("could not be waited for: {error}"))),
        }
    };
    let collect = |reader: Option<std::thread::JoinHandle<Vec<u8>>>| {
        reader
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default()
    };
    let (stdout, stderr) = (collect(stdout), collect(stderr));
    if !status.success() {
        let stderr = String::from_utf8_lossy(&stderr);
        let stderr: String = stderr.trim().chars().take(STDERR_SHOWN).collect();
        return Err(failed(format!("failed ({status}): {stderr}")));
    }
    parse(&stdout, now_secs()).map_err(failed)
}

/// Reads all of `pipe` on a thread of its own.
fn read_in_background(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn now_secs() -> i64 {
    DateTime::from(std::time::SystemTime::now()).secs()
}

/// The credentials in the command's output, checked as the SDK checks them (`now` in seconds
/// since the Unix epoch). The messages never repeat the output: it holds the secret key.
fn parse(stdout: &[u8], now: i64) -> Result<(AwsKeys, Option<i64>), String> {
    let text = String::from_utf8_lossy(stdout);
    let data: Value =
        serde_json::from_str(text.trim()).map_err(|_| "returned invalid JSON".to_owned())?;
    if data.get("Version").and_then(Value::as_u64) != Some(1) {
        return Err("did not return Version 1".to_owned());
    }
    let field = |name: &str| data.get(name).and_then(Value::as_str).map(str::to_owned);
    let (Some(access_key_id), Some(secret_access_key)) =
        (field("AccessKeyId"), field("SecretAccessKey"))
    else {
        return Err("returned invalid credentials (no AccessKeyId or SecretAccessKey)".to_owned());
    };
    let mut expires = None;
    if let Some(expiration) = field("Expiration") {
        let at = DateTime::from_str(&expiration, Format::DateTimeWithOffset)
            .map_err(|_| format!("returned an Expiration that is not a date: {expiration}"))?;
        if at.secs() < now {
            return Err(format!(
                "returned expired credentials (Expiration {expiration})"
            ));
        }
        expires = Some(at.secs());
    }
    let keys = AwsKeys {
        access_key_id,
        secret_access_key,
        session_token: field("SessionToken").filter(|token| !token.is_empty()),
    };
    Ok((keys, expires))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_checked_as_the_sdk_checks_it() {
        let now = 1_800_000_000; // 2027-01-15
        let keys = parse(
            br#"{"Version": 1, "AccessKeyId": "AKID", "SecretAccessKey": "s3cret",
                "SessionToken": "tok", "Expiration": "2027-02-01T00:00:00Z"}"#,
            now,
        );
        assert_eq!(
            keys,
            Ok((
                AwsKeys {
                    access_key_id: "AKID".into(),
                    secret_access_key: "s3cret".into(),
                    session_token: Some("tok".into()),
                },
                Some(1_801_440_000)
            ))
        );
        let refused = |output: &str| parse(output.as_bytes(), now).unwrap_err();
        assert_eq!(refused("not json"), "returned invalid JSON");
        assert!(
            refused(r#"{"Version": 2, "AccessKeyId": "a", "SecretAccessKey": "b"}"#)
                .contains("Version 1")
        );
        assert!(refused(r#"{"Version": 1, "AccessKeyId": "a"}"#).contains("invalid credentials"));
        let expired = refused(
            r#"{"Version": 1, "AccessKeyId": "a", "SecretAccessKey": "s3cret", "Expiration": "2020-01-01T00:00:00Z"}"#,
        );
        assert!(
            expired.contains("expired") && !expired.contains("s3cret"),
            "{expired}"
        );
    }

    #[test]
    fn the_command_runs_through_the_shell_and_its_failure_is_named() {
        let keys = process_credentials(
            "dev",
            r#"printf '{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "x"}' "$((40 + 2))""#,
        );
        assert_eq!(
            keys.map(|(keys, _)| keys.access_key_id),
            Ok("42".to_owned())
        );
        let failed = process_credentials("dev", "echo token expired >&2; exit 3").unwrap_err();
        assert!(
            failed.starts_with("the AWS profile dev's credential_process failed")
                && failed.contains("token expired"),
            "{failed}"
        );
    }
}
