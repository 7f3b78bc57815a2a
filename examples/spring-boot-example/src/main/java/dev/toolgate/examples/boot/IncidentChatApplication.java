package dev.toolgate.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A Spring Boot chat application with governed tools. Its whole Toolgate setup is the starter
 * dependency, the {@code toolgate.*} lines of {@code application.properties} and the one
 * {@link IncidentTools} bean: the starter builds the gate on the application's DataSource, adds the
 * consent loop to the {@code ChatClient}, takes each request's principal from Spring Security, and mounts
 * the operator console at {@code /toolgate/}.
 *
 * <p>Run: {@code ./mvnw -pl examples/spring-boot-example -am compile exec:java}, then as ana (a chat user)
 * {@code curl -u ana:ana-demo -H 'Content-Type: application/json' -d '{"conversation":"c1","message":"open an incident: VPN down"}' localhost:8080/chat};
 * approve as olga (an operator) at http://localhost:8080/toolgate/; ask ana's next question and the
 * model is told the result. The model is scripted unless {@code spring.ai.model.chat=openai} and an
 * OpenAI key are given (see the README).
 */
@SpringBootApplication
public class IncidentChatApplication {

    public static void main(String[] args) {
        SpringApplication.run(IncidentChatApplication.class, args);
    }

    /** The application's tools: the one bean Toolgate needs. */
    @Bean
    IncidentTools incidentTools() {
        return new IncidentTools();
    }

    /** Demo users: ana chats (and may read and open incidents), olga operates the console. Use your own user store. */
    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("ana").password("{noop}ana-demo").authorities("incident.read", "incident.write").build(),
                User.withUsername("olga").password("{noop}olga-demo")
                        .authorities("ROLE_TOOLGATE_OPERATOR", "incident.read", "incident.write").build());
    }

    /** Everything needs a signed-in person; the chat API is called with HTTP Basic, the console signs in by form or Basic. */
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .formLogin(Customizer.withDefaults())
                .csrf(csrf -> csrf.ignoringRequestMatchers("/chat")) // a JSON API for non-browser clients
                .build();
    }
}
