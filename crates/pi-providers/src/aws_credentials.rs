//! Where a Bedrock request goes and how it is authenticated, found as Pi 0.80.6 (through the
//! AWS SDK's default chain) finds them: a Bedrock bearer token (`AWS_BEARER_TOKEN_BEDROCK`, or
//! a key given as the provider's API key), IAM keys from the environment
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), or the static keys of
//! a profile (`AWS_PROFILE`, else `default`) in the shared credentials and config files. The
//! region: one named in an inference-profile ARN, `AWS_REGION`, `AWS_DEFAULT_REGION`, the
//! profile's `region`, else `us-east-1`.
//!
//! A profile's `credential_process` is run as the SDK runs it (see
//! `aws_process_credentials`). Credential sources that need a network exchange (SSO, an
//! assumed role, a container or instance role, web identity) are not followed: a profile or
//! environment that only has those is a clear error saying what to run instead.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// IAM credentials for SigV4.
#[derive(Clone, PartialEq, Eq)]
pub struct AwsKeys {
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`, for temporary credentials.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for AwsKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The access key id names the account's key, not a secret; the rest never shows.
        f.debug_struct("AwsKeys")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<set>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<set>"),
            )
            .finish()
    }
}

/// How Bedrock requests are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum BedrockAuth {
    /// `Authorization: Bearer <token>` (Bedrock API keys).
    Bearer(String),
    /// SigV4 with these keys.
    Keys(AwsKeys),
    /// SigV4 with the keys of a profile's `credential_process`, run again before they expire.
    Process(crate::aws_process_credentials::ProcessCredentials),
    /// No authentication (`AWS_BEDROCK_SKIP_AUTH=1`, for a proxy that adds its own).
    None,
}

impl std::fmt::Debug for BedrockAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bearer(_) => f.write_str("Bearer(<set>)"),
            Self::Keys(keys) => keys.fmt(f),
            Self::Process(process) => process.fmt(f),
            Self::None => f.write_str("None"),
        }
    }
}

/// Bedrock's settings from the environment and the AWS files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BedrockSettings {
    /// `AWS_REGION`, else `AWS_DEFAULT_REGION`.
    pub configured_region: Option<String>,
    /// The profile's `region` in the config file.
    pub profile_region: Option<String>,
    /// `AWS_PROFILE` is set (Pi then lets the SDK pick the endpoint of the region).
    pub profile_set: bool,
    /// `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, else `AWS_ENDPOINT_URL`: the SDK's endpoint
    /// override, used when the base URL is Bedrock's own.
    pub endpoint_override: Option<String>,
    /// How requests are authenticated; `Err` says why there is no way.
    pub auth: Result<BedrockAuth, String>,
    /// `AWS_BEDROCK_FORCE_CACHE=1`: cache points for a model whose id names no Claude model
    /// (an application inference profile's ARN).
    pub force_cache: bool,
}

impl BedrockSettings {
    /// The settings from the process environment and `~/.aws`.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok(), None)
    }

    /// The settings from `lookup` (variable name to value) and the AWS files it names;
    /// `api_key` (the provider's key from `--api-key` or auth.json) is a bearer token, as Pi
    /// takes it.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>, api_key: Option<&str>) -> Self {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let profile_name = get("AWS_PROFILE");
        let profile = read_profile(&get, profile_name.as_deref().unwrap_or("default"));
        let auth = if get("AWS_BEDROCK_SKIP_AUTH").as_deref() == Some("1") {
            Ok(BedrockAuth::None)
        } else if let Some(token) = api_key
            .map(str::to_owned)
            .or_else(|| get("AWS_BEARER_TOKEN_BEDROCK"))
        {
            Ok(BedrockAuth::Bearer(token))
        } else if let (Some(access_key_id), Some(secret_access_key)) =
            (get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"))
        {
            Ok(BedrockAuth::Keys(AwsKeys {
                access_key_id,
                secret_access_key,
                session_token: get("AWS_SESSION_TOKEN"),
            }))
        } else {
            profile_keys(&profile, profile_name.as_deref(), &get)
        };
        Self {
            configured_region: get("AWS_REGION").or_else(|| get("AWS_DEFAULT_REGION")),
            profile_region: profile.get("region").cloned(),
            profile_set: profile_name.is_some(),
            endpoint_override: get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
                .or_else(|| get("AWS_ENDPOINT_URL")),
            auth,
            force_cache: get("AWS_BEDROCK_FORCE_CACHE").as_deref() == Some("1"),
        }
    }

    /// The region a request for `model` is signed for: an ARN's, the configured one, the
    /// region of an explicit Bedrock endpoint, the profile's, else `us-east-1` (Pi's order).
    pub fn region_for(&self, model: &str, explicit_endpoint_region: Option<&str>) -> String {
        arn_region(model)
            .or_else(|| self.configured_region.clone())
            .or_else(|| explicit_endpoint_region.map(str::to_owned))
            .or_else(|| self.profile_region.clone())
            .unwrap_or_else(|| "us-east-1".to_owned())
    }
}

/// The region of an inference-profile ARN (`arn:aws:bedrock:eu-west-1:...`).
fn arn_region(model: &str) -> Option<String> {
    let mut parts = model.split(':');
    let (arn, partition, service, region) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    (arn == "arn" && partition.starts_with("aws") && service == "bedrock" && !region.is_empty())
        .then(|| region.to_owned())
}

/// The region of a standard Bedrock runtime host (`bedrock-runtime.us-east-1.amazonaws.com`).
pub(crate) fn standard_endpoint_region(base_url: &str) -> Option<String> {
    let url = url::Url::parse(base_url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let rest = host
        .strip_prefix("bedrock-runtime-fips.")
        .or_else(|| host.strip_prefix("bedrock-runtime."))?;
    let region = rest
        .strip_suffix(".amazonaws.com.cn")
        .or_else(|| rest.strip_suffix(".amazonaws.com"))?;
    (!region.is_empty()
        && region
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
    .then(|| region.to_owned())
}

/// The keys of the profile's sections in the credentials file, then the config file (the
/// credentials file wins, as in the SDK).
fn read_profile(get: &dyn Fn(&str) -> Option<String>, name: &str) -> BTreeMap<String, String> {
    let home = get("HOME").map(PathBuf::from);
    let file = |variable: &str, default: &str| {
        get(variable)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|home| home.join(default)))
    };
    let mut found = BTreeMap::new();
    let config_section = if name == "default" {
        "default".to_owned()
    } else {
        format!("profile {name}")
    };
    let sources = [
        (
            file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"),
            name.to_owned(),
        ),
        (file("AWS_CONFIG_FILE", ".aws/config"), config_section),
    ];
    for (path, section) in sources {
        let Some(text) = path.and_then(|path| std::fs::read_to_string(path).ok()) else {
            continue;
        };
        for (key, value) in ini_section(&text, &section) {
            found.entry(key).or_insert(value);
        }
    }
    found
}

/// The `key = value` pairs of `[section]` in an INI text (comments and other sections
/// skipped; keys lower-cased).
fn ini_section(text: &str, section: &str) -> Vec<(String, String)> {
    let mut inside = false;
    let mut pairs = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            inside = name.trim() == section;
            continue;
        }
        if inside && let Some((key, value)) = line.split_once('=') {
            pairs.push((key.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    pairs
}

/// The profile's static keys, or why there are none.
fn profile_keys(
    profile: &BTreeMap<String, String>,
    name: Option<&str>,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<BedrockAuth, String> {
    if let (Some(access_key_id), Some(secret_access_key)) = (
        profile.get("aws_access_key_id"),
        profile.get("aws_secret_access_key"),
    ) {
        return Ok(BedrockAuth::Keys(AwsKeys {
            access_key_id: access_key_id.clone(),
            secret_access_key: secret_access_key.clone(),
            session_token: profile.get("aws_session_token").cloned(),
        }));
    }
    // The SDK's order for a profile: an assumed role, SSO, then credential_process.
    let shown = name.unwrap_or("default");
    let export = format!(
        "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (`eval \"$(aws configure \
         export-credentials --profile {shown} --format env)\"`), or set AWS_BEARER_TOKEN_BEDROCK"
    );
    if profile.contains_key("role_arn") {
        return Err(format!(
            "the AWS profile {shown} assumes a role (role_arn), which this program does not \
             follow: {export}"
        ));
    }
    if let Some(key) = ["sso_session", "sso_start_url"]
        .into_iter()
        .find(|key| profile.contains_key(*key))
    {
        return Err(format!(
            "the AWS profile {shown} signs in through SSO ({key}), which this program does not \
             follow: run `aws sso login --profile {shown}`, then {export}"
        ));
    }
    if let Some(command) = profile.get("credential_process") {
        return crate::aws_process_credentials::ProcessCredentials::run(shown, command)
            .map(BedrockAuth::Process);
    }
    if let Some(name) = name {
        return Err(format!(
            "the AWS profile {name} has no aws_access_key_id and aws_secret_access_key in the \
             AWS credentials or config file"
        ));
    }
    let role = [
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ]
    .into_iter()
    .find(|variable| get(variable).is_some());
    Err(match role {
        Some(variable) => format!(
            "{variable} names a role this program does not assume: export AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY, or set AWS_BEARER_TOKEN_BEDROCK"
        ),
        None => "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, \
                 AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK"
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)], api_key: Option<&str>) -> BedrockSettings {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        BedrockSettings::from_lookup(|name| vars.get(name).cloned(), api_key)
    }

    #[test]
    fn a_bearer_token_comes_before_keys_and_keys_before_profiles() {
        let both = [
            ("AWS_BEARER_TOKEN_BEDROCK", "bedrock-token"),
            ("AWS_ACCESS_KEY_ID", "AKID"),
            ("AWS_SECRET_ACCESS_KEY", "s3cr3t-value"),
        ];
        assert_eq!(
            settings(&both, None).auth,
            Ok(BedrockAuth::Bearer("bedrock-token".to_owned()))
        );
        assert_eq!(
            settings(&both[1..], Some("stored")).auth,
            Ok(BedrockAuth::Bearer("stored".to_owned()))
        );
        let keys = settings(&both[1..], None).auth.unwrap();
        assert!(matches!(
            keys,
            BedrockAuth::Keys(AwsKeys {
                session_token: None,
                ..
            })
        ));
        assert!(!format!("{keys:?}").contains("s3cr3t-value"));
    }

    #[test]
    fn a_profile_gives_its_static_keys_and_region() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".aws")).unwrap();
        std::fs::write(
            dir.path().join(".aws/credentials"),
            "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\n[dev]\n\
             aws_access_key_id = DEVKEY\naws_secret_access_key = DEVSECRET\naws_session_token = T\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(".aws/config"),
            "[profile dev]\nregion = eu-west-3\n[profile sso]\nsso_session = corp\n",
        )
        .unwrap();
        let home = dir.path().to_string_lossy().into_owned();
        let dev = settings(&[("HOME", &home), ("AWS_PROFILE", "dev")], None);
        assert_eq!(
            dev.auth,
            Ok(BedrockAuth::Keys(AwsKeys {
                access_key_id: "DEVKEY".to_owned(),
                secret_access_key: "DEVSECRET".to_owned(),
                session_token: Some("T".to_owned()),
            }))
        );
        assert_eq!(dev.region_for("anthropic.claude", None), "eu-west-3");
        let sso = settings(&[("HOME", &home), ("AWS_PROFILE", "sso")], None);
        let sso = sso.auth.unwrap_err();
        assert!(
            sso.contains("SSO (sso_session)") && sso.contains("run `aws sso login --profile sso`"),
            "{sso}"
        );
        let default = settings(&[("HOME", &home)], None);
        assert!(matches!(default.auth, Ok(BedrockAuth::Keys(_))));
        let nothing = settings(&[], None);
        assert!(nothing.auth.unwrap_err().starts_with("no AWS credentials"));
    }

    #[test]
    fn a_profiles_credential_process_gives_the_keys() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("creds.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\nprintf '{\"Version\": 1, \"AccessKeyId\": \"%s\", \"SecretAccessKey\": \"S\", \"SessionToken\": \"T\"}' \"$1\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            format!(
                "[profile proc]\ncredential_process = {} PROCKEY\n[profile both]\n\
                 sso_session = corp\ncredential_process = {} PROCKEY\n",
                script.display(),
                script.display()
            ),
        )
        .unwrap();
        let config = config.to_string_lossy().into_owned();
        let proc = settings(
            &[("AWS_CONFIG_FILE", &config), ("AWS_PROFILE", "proc")],
            None,
        );
        let Ok(BedrockAuth::Process(process)) = proc.auth else {
            panic!("credential_process keys: {:?}", proc.auth);
        };
        assert_eq!(
            process.keys,
            AwsKeys {
                access_key_id: "PROCKEY".to_owned(),
                secret_access_key: "S".to_owned(),
                session_token: Some("T".to_owned()),
            }
        );
        // SSO comes first, as in the SDK.
        let both = settings(
            &[("AWS_CONFIG_FILE", &config), ("AWS_PROFILE", "both")],
            None,
        );
        assert!(both.auth.unwrap_err().contains("aws sso login"));
    }

    #[test]
    fn the_region_follows_pi_order() {
        let env = settings(&[("AWS_DEFAULT_REGION", "ap-south-1")], None);
        assert_eq!(env.region_for("m", Some("us-west-2")), "ap-south-1");
        assert_eq!(
            env.region_for(
                "arn:aws:bedrock:eu-west-1:123:application-inference-profile/x",
                None
            ),
            "eu-west-1"
        );
        let none = settings(&[], None);
        assert_eq!(none.region_for("m", Some("us-west-2")), "us-west-2");
        assert_eq!(none.region_for("m", None), "us-east-1");
    }

    #[test]
    fn standard_endpoints_name_their_region() {
        assert_eq!(
            standard_endpoint_region("https://bedrock-runtime.eu-central-1.amazonaws.com")
                .as_deref(),
            Some("eu-central-1")
        );
        assert_eq!(standard_endpoint_region("http://127.0.0.1:8080"), None);
    }
}
