//! Each file tool's work on a thread of its own that Landlock restricts to the workspace's roots
//! before the work starts.
//!
//! The path check in [`crate::Workspace::confined_path`] reads the file system and the work
//! uses the path later: a directory swapped for a symbolic link in between (the model's own
//! `bash` can do it in the background, `renameat2(RENAME_EXCHANGE)`) would send a read or a
//! write outside. Under this ruleset the kernel refuses such an open, whatever the path
//! string says, because Landlock judges the file actually reached. Where the kernel has no
//! Landlock the check alone remains, as [`enforcement`] says.

use std::path::PathBuf;
use std::sync::OnceLock;

use pi_tool::{ToolError, panic_message};

/// Whether the work only reads or also writes inside the roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// `read`, `grep`, `find`, `ls`.
    Read,
    /// `write`, `edit`.
    Write,
}

/// Runs `work` on a fresh thread restricted to `roots` (read, or read and write), and gives its
/// result back; a panic in `work` becomes the call's error. The thread ends with the work, so
/// its restriction never reaches another task.
pub(crate) async fn run_confined<T: Send + 'static>(
    roots: Vec<PathBuf>,
    access: Access,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let started = std::thread::Builder::new()
        .name("pi-file-tool".to_owned())
        .spawn(move || {
            restrict(&roots, access);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            // The call may have been dropped meanwhile: nobody left to tell.
            let _ = sender.send(outcome);
        })
        .map_err(|error| ToolError::new(format!("could not start the file tool: {error}")))?;
    drop(started);
    match receiver.await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => Err(ToolError::new(panic_message(panic.as_ref()))),
        Err(_) => Err(ToolError::new(
            "the file tool's thread ended without a result",
        )),
    }
}

/// How far this machine holds the file tools inside their roots: `landlock`, or `none: why`
/// (then only the path check does). Probed once.
pub(crate) fn enforcement() -> &'static str {
    static PROBED: OnceLock<String> = OnceLock::new();
    PROBED.get_or_init(|| {
        std::thread::scope(|scope| {
            scope
                .spawn(|| restrict(&[std::env::temp_dir()], Access::Read))
                .join()
                .unwrap_or_else(|_| "none: the probe thread failed".to_owned())
        })
    })
}

#[cfg(target_os = "linux")]
fn restrict(roots: &[PathBuf], access: Access) -> String {
    super::rules::restrict_files(roots, access == Access::Write)
}

#[cfg(not(target_os = "linux"))]
fn restrict(_roots: &[PathBuf], _access: Access) -> String {
    "none: Landlock is Linux only".to_owned()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The kernel, not the path check, refuses what lies outside: the work here opens outside
    /// paths directly, as a raced path would.
    #[tokio::test]
    async fn the_kernel_refuses_what_lies_outside_the_roots() {
        let enforced = enforcement();
        assert!(
            enforced.starts_with("landlock") || std::env::var_os("PI_TEST_NO_LANDLOCK").is_some(),
            "this kernel does not enforce Landlock ({enforced}); set PI_TEST_NO_LANDLOCK=1 to accept that"
        );
        if !enforced.starts_with("landlock") {
            eprintln!("SKIPPED (PI_TEST_NO_LANDLOCK): {enforced}");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret"), "secret").unwrap();
        std::fs::write(root.join("mine"), "mine").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let roots = vec![root.canonicalize().unwrap()];
        let (inside, through_link, write_outside, write_inside) =
            run_confined(roots.clone(), Access::Write, move || {
                (
                    std::fs::read_to_string(root.join("mine")).ok(),
                    std::fs::read_to_string(root.join("link/secret")).ok(),
                    std::fs::write(root.join("link/new"), "x").is_ok(),
                    std::fs::write(root.join("new"), "x").is_ok(),
                )
            })
            .await
            .unwrap();
        assert_eq!(inside.as_deref(), Some("mine"));
        assert_eq!(through_link, None, "read outside through a link");
        assert!(!write_outside, "wrote outside through a link");
        assert!(write_inside);
        assert!(!outside.join("new").exists());
        // A reader may not write even inside.
        let roots_again = roots.clone();
        let wrote = run_confined(roots, Access::Read, move || {
            std::fs::write(roots_again[0].join("reader"), "x").is_ok()
        })
        .await
        .unwrap();
        assert!(!wrote, "a reading tool wrote");
        // The restriction stayed on its thread: this one still reaches the outside.
        assert_eq!(
            std::fs::read_to_string(outside.join("secret")).unwrap(),
            "secret"
        );
    }
}
