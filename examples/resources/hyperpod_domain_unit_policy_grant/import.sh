# The import ID is `<domain ID>/<domain unit ID>/<grant ID>`; list a unit's grant IDs with
# `aws datazone list-policy-grants --domain-identifier dzd_capacity01 --entity-type DOMAIN_UNIT
#  --entity-identifier mlplatform0001 --policy-type CREATE_PROJECT_FROM_PROJECT_PROFILE`.
terraform import hyperpod_domain_unit_policy_grant.hyperpod_projects dzd_capacity01/mlplatform0001/AbCdEf0123
