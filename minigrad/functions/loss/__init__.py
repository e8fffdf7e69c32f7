"""loss ops."""
