"""evaluation ops."""
