"""The parts of the sandbox's Kubernetes API, one concern each; sandbox/kubernetes.py is its public face and states
the contract (what a client sees).

Bottom up: kinds (what is served) and errors (Status answers); tls (the listener's CA and certificate), identity
(access key -> IAM principal) and tokens (EKS bearer tokens); store (objects per EKS cluster, resource versions,
namespaces) with validation (names, fields, server-side defaults) and field_ownership (managedFields, server-side
apply); authorization (access entries and EKS access policies -> allowed or 403); http (bodies, selectors, merge
patches), resources (the verbs on objects), app (routes, discovery, faults, authentication); endpoint (where the
listener is) and server (start/stop).
"""
