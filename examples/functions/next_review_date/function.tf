# When the contract is next due for review: "2027-02-18".
output "research_next_review" {
  value = provider::hyperpod::next_review_date("2026-11-20", 90)
}
