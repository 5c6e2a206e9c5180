"""Reading client configs: discovery, formats, variables, and one module per client."""
