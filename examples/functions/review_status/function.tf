# Where a review schedule stands at plan time: "current", "due_soon" (within 14 days) or "overdue".
output "research_review" {
  value = provider::hyperpod::review_status("2026-11-20", 90, plantimestamp())
}
