// LivelineHTTP
