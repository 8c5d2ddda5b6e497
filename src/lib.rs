//! BeamMCP: a Model Context Protocol server core in the OTP style.
pub mod connectome;
