// LivelineCrypto
