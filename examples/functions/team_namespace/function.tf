# The Kubernetes namespace HyperPod task governance creates for the team "research": "hyperpod-ns-research".
output "research_namespace" {
  value = provider::hyperpod::team_namespace("research")
}
