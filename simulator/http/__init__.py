"""HTTP: the management API and publisher routes, authentication, errors and the command line."""
