// LivelineServer
