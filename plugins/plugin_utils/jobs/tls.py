"""The dynamic cluster's TLS settings of a job (job_dynamic_tls), as MindSpore's dynamic cluster
launch guide lists them: the fields, the required paths and passwords, the certificate warning
days. The passwords never enter the plan."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int

TLS_FIELDS = ("server_cert_path", "crl_path", "client_cert_path", "ca_cert_path", "cipher_list",
              "cert_expire_warning_time_in_day")
TLS_SECRETS = ("client_password", "server_password")


def check_tls(job, where, errors):
    tls = job.get("job_dynamic_tls") or {}
    if not isinstance(tls, dict):
        errors.append(f"{where}: job_dynamic_tls: must be a mapping, got a {type(tls).__name__}")
        return {}
    if not tls:
        return {}
    for key in sorted(set(tls) - set(TLS_FIELDS) - set(TLS_SECRETS)):
        errors.append(f"{where}: job_dynamic_tls: {key} is not a field of the TLS config "
                      f"(fields: {', '.join(TLS_FIELDS + TLS_SECRETS)})")
    for key in ("server_cert_path", "client_cert_path", "ca_cert_path") + TLS_SECRETS:
        if not isinstance(tls.get(key), str) or not tls.get(key):
            errors.append(f"{where}: job_dynamic_tls: {key} is required when TLS is on")
    days = tls.get("cert_expire_warning_time_in_day", 90)
    if not is_int(days) and 7 <= days <= 180:
        errors.append(f"{where}: job_dynamic_tls: cert_expire_warning_time_in_day {days!r} is not "
                      f"an integer from 7 to 180")
    config = {key: tls.get(key, "") for key in TLS_FIELDS}
    config["cert_expire_warning_time_in_day"] = days
    # The passwords stay out of the plan (it is a fact, shown with -v): the playbook writes them
    # from job_dynamic_tls straight into a 0600 file with no_log.
    return {"enabled": True, "config": config}
