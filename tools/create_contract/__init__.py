"""create_contract: the sprint contract, written before any code exists.

entry       create_contract, import_contract, get_contract
validation  every problem of a request at once (types and rules), and its warnings
views       the evaluator view and the generator view (hold-outs removed without a trace)
files       contracts as YAML files for CI
config      the rubric and allowlist fixed when the contract is created (from the base commit),
            and the rubrics that judge a stored contract
seal        the HMAC an exported file carries, without which its configuration is not taken
"""

from referee.tools.create_contract.config import (
    config_digest,
    contract_rubrics,
    fixed_rubrics,
    rubrics_at,
)
from referee.tools.create_contract.entry import (
    create_contract,
    export_contract,
    get_contract,
    import_contract,
)
from referee.tools.create_contract.files import (
    ContractFile,
    ContractFileError,
    contract_from_text,
    load_contract_file,
    load_exported_file,
    parse_contract,
    parse_exported,
    read_contract_file,
    to_yaml,
)
from referee.tools.create_contract.validation import request_problems
from referee.tools.create_contract.views import View, contract_document, generator_view

__all__ = [
    "ContractFile",
    "ContractFileError",
    "View",
    "config_digest",
    "contract_document",
    "contract_from_text",
    "contract_rubrics",
    "create_contract",
    "export_contract",
    "fixed_rubrics",
    "generator_view",
    "get_contract",
    "import_contract",
    "load_contract_file",
    "load_exported_file",
    "parse_contract",
    "parse_exported",
    "read_contract_file",
    "request_problems",
    "rubrics_at",
    "to_yaml",
]
