# The contract exists only in configuration and state: import records it by name, and the next apply fills in the
# rest from the configuration (no AWS call).
terraform import hyperpod_connection_contract.research research-on-ml-capacity
