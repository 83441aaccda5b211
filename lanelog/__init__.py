"""lanelog: bound agent patches before a model call, and review the lane log afterwards."""

__version__ = "0.1.0"
