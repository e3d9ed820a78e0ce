//! `cargo xtask ct` (not yet implemented).

/// Runs the command.
pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("not implemented yet".into())
}
