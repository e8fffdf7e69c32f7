"""pooling ops."""
