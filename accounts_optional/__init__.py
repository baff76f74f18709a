"""Optional accounts: playing never needs one; a guest's session is enough."""
