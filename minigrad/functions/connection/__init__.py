"""connection ops."""
