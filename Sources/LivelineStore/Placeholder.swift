// LivelineStore
