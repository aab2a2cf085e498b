"""Model backends behind one protocol, and the registry that turns "provider/name" into one."""
