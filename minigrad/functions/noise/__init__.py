"""noise ops."""
