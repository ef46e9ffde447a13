import {
  to = hyperpod_connection_contract.research
  identity = {
    name = "research-on-ml-capacity"
  }
}
