"""The GETT planner: problem -> partition and order -> layouts -> Plan."""
from .partition import Partition, partition
from .plan import Plan, make_plan
from .problem import ContractionProblem, TensorInfo

__all__ = ["ContractionProblem", "TensorInfo", "Partition", "partition", "Plan", "make_plan"]
