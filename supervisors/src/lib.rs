//! OTP-style supervision on `ractor`.
