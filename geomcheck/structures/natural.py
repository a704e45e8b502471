"""(being built)"""

__all__: list = []
