//! Providers Pi reaches without a key variable: Amazon Bedrock (an AWS profile, IAM keys, a
//! Bedrock bearer token, an ECS task role or IRSA) and Google Vertex AI (application default
//! credentials with a project and a location). Pi's checks of the environment, as facts.

use std::path::PathBuf;

use crate::variables::Variables;

/// How `provider` is authenticated without a key, by Pi's checks of `vars`: a short
/// description (`AWS_PROFILE`, `application default credentials`), or `None`.
pub(crate) fn ambient_credentials(provider: &str, vars: &Variables) -> Option<String> {
    match provider {
        "amazon-bedrock" => bedrock(vars),
        "google-vertex" => vertex(vars),
        _ => None,
    }
}

fn bedrock(vars: &Variables) -> Option<String> {
    if vars.is_set("AWS_ACCESS_KEY_ID") && vars.is_set("AWS_SECRET_ACCESS_KEY") {
        return Some("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".to_owned());
    }
    [
        "AWS_PROFILE",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ]
    .into_iter()
    .find(|name| vars.is_set(name))
    .map(str::to_owned)
}

fn vertex(vars: &Variables) -> Option<String> {
    let credentials = match vars.get("GOOGLE_APPLICATION_CREDENTIALS") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(vars.get("HOME")?)
            .join(".config/gcloud/application_default_credentials.json"),
    };
    let project = vars.is_set("GOOGLE_CLOUD_PROJECT") || vars.is_set("GCLOUD_PROJECT");
    (credentials.is_file() && project && vars.is_set("GOOGLE_CLOUD_LOCATION"))
        .then(|| "application default credentials".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bedrock_takes_a_profile_or_both_iam_keys() {
        let profile = Variables::fixed([("AWS_PROFILE", "dev")]);
        assert_eq!(
            ambient_credentials("amazon-bedrock", &profile).as_deref(),
            Some("AWS_PROFILE")
        );
        let half = Variables::fixed([("AWS_ACCESS_KEY_ID", "AKIA")]);
        assert_eq!(ambient_credentials("amazon-bedrock", &half), None);
        assert_eq!(ambient_credentials("openai", &profile), None);
    }

    #[test]
    fn vertex_needs_a_credentials_file_a_project_and_a_location() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("adc.json");
        std::fs::write(&file, "{}").unwrap();
        let path = file.to_string_lossy().into_owned();
        let complete = Variables::fixed([
            ("GOOGLE_APPLICATION_CREDENTIALS", path.as_str()),
            ("GOOGLE_CLOUD_PROJECT", "p"),
            ("GOOGLE_CLOUD_LOCATION", "us-central1"),
        ]);
        assert!(ambient_credentials("google-vertex", &complete).is_some());
        let no_location = Variables::fixed([
            ("GOOGLE_APPLICATION_CREDENTIALS", path.as_str()),
            ("GOOGLE_CLOUD_PROJECT", "p"),
        ]);
        assert_eq!(ambient_credentials("google-vertex", &no_location), None);
    }
}
